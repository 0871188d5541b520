package client

import (
	"io"
	"strings"
	"testing"
	"time"
)

// event is what sseReader returns, for comparison.
type event struct {
	data string
	at   time.Duration
	kind eventKind
}

// readAll splits reads (each returned by one Read call) into events, with a
// clock that ticks once per clock reading, starting at 1.
func readAll(t *testing.T, reads []string) []event {
	t.Helper()
	var tick time.Duration
	clock := func() time.Duration { tick++; return tick }
	r := newSSEReader(&chunkedReader{reads: reads}, clock)
	defer r.free()
	var events []event
	for {
		data, at, k, err := r.next()
		if err == io.EOF {
			return events
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, event{string(data), at, k})
	}
}

// chunkedReader returns its reads one per Read call.
type chunkedReader struct{ reads []string }

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.reads) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.reads[0])
	if c.reads[0] = c.reads[0][n:]; c.reads[0] == "" {
		c.reads = c.reads[1:]
	}
	return n, nil
}

func TestSSEFraming(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100<<10) // longer than the buffer
	tests := []struct {
		name  string
		reads []string
		want  []event
	}{
		{"LF", []string{"data: a\n\ndata: b\n\n"}, []event{{"a", 1, 0}, {"b", 1, 0}}},
		{"CRLF", []string{"data: a\r\n\r\ndata: b\r\n\r\n"}, []event{{"a", 1, 0}, {"b", 1, 0}}},
		{"no space", []string{"data:a\n\n"}, []event{{"a", 1, 0}}},
		{"one space only", []string{"data:  a \n\n"}, []event{{" a ", 1, 0}}},
		{"lines joined", []string{"data: a\ndata:\ndata: b\n\n"}, []event{{"a\n\nb", 1, 0}}},
		{"ignored", []string{": hi\nevent: x\nid: 1\nretry: 9\ndatax: 1\nDATA: 2\n\ndata: a\n\n"}, []event{{"a", 1, 0}}},
		{"field without colon", []string{"data\n\n"}, []event{{"", 1, 0}}},
		{"no final blank line", []string{"data: a\n"}, []event{{"a", 1, 0}}},
		{"no final line end", []string{"data: a\r"}, []event{{"a", 1, 0}}},
		{"error field", []string{"error: {\"code\":500}\n\n"}, []event{{`{"code":500}`, 1, errorEvent}}},
		{"blank lines only", []string{"\n\n\r\n"}, nil},
		// A line's arrival is the read that completed it, not the blank line's.
		{"stamps", []string{"data: a\n\nda", "ta: b\n", "\n", "data: c\n\n"},
			[]event{{"a", 1, 0}, {"b", 2, 0}, {"c", 4, 0}}},
		// Lines longer than the buffer: each read fills the buffer, which
		// starts at sseBufSize (2 KiB) and doubles when a line does not
		// fit, so after read k it holds 2^k KiB. The first Read's data
		// (50 KiB + 6) ends in read 6; read 7 fills 64 KiB and read 8 the
		// rest. At maxEvent (4 MiB = 2^12 KiB after read 12) the buffer's
		// last step is to maxLine+1 bytes: read 13 completes the line and
		// holds the blank line and a "d"; read 14 the rest.
		{"long line", []string{"data: " + long[:50<<10], long[50<<10:] + "\n\ndata: z\n\n"},
			[]event{{long, 8, 0}, {"z", 8, 0}}},
		{"at maxEvent", []string{"data: " + strings.Repeat("y", maxEvent) + "\n\ndata: z\n\n"},
			[]event{{strings.Repeat("y", maxEvent), 13, 0}, {"z", 14, 0}}},
	}
	for _, tt := range tests {
		got := readAll(t, tt.reads)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %d events, want %d", tt.name, len(got), len(tt.want))
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				g, w := got[i], tt.want[i]
				g.data, w.data = g.data[:min(len(g.data), 40)], w.data[:min(len(w.data), 40)]
				t.Errorf("%s: event %d: got %+v (%d bytes), want %+v (%d bytes)",
					tt.name, i, g, len(got[i].data), w, len(tt.want[i].data))
			}
		}
	}
}

// TestSSEBounds checks that a line or an event longer than maxEvent ends
// the input with errEventTooLong, after the events before it, without
// reading the rest: an endless line must not be read to its end.
func TestSSEBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  io.Reader
	}{
		{"long line", strings.NewReader("data: a\n\ndata: " + strings.Repeat("y", maxEvent+1) + "\n\ndata: z\n\n")},
		{"endless line", io.MultiReader(strings.NewReader("data: a\n\ndata: "), endlessReader{})},
		{"long event", strings.NewReader("data: a\n\n" + strings.Repeat("data: "+strings.Repeat("y", 1<<10)+"\n", 4<<10) + "\n")},
	}
	for _, tt := range tests {
		r := newSSEReader(tt.src, func() time.Duration { return 1 })
		data, _, _, err := r.next()
		if err != nil || string(data) != "a" {
			t.Errorf("%s: first event %q %v, want a", tt.name, data, err)
		}
		if _, _, _, err = r.next(); err != errEventTooLong {
			t.Errorf("%s: got %v, want errEventTooLong", tt.name, err)
		}
		if _, _, _, err = r.next(); err != errEventTooLong {
			t.Errorf("%s: then %v, want errEventTooLong again", tt.name, err)
		}
		if n := cap(r.br.buf) + cap(r.data); n > 3*maxEvent {
			t.Errorf("%s: holds %d bytes of buffers", tt.name, n)
		}
		r.free()
	}
}

// endlessReader yields 'x' forever, without a line end.
type endlessReader struct{}

func (endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
