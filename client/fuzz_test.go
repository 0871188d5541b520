package client

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The seed corpora are in testdata/fuzz, built from the transcripts and the
// fixtures of ../testdata by seedCorpus (see TestFuzzCorpus).

// FuzzParseEvent checks the fast scanner against its definition, the
// encoding/json reference, on any bytes: same validity (json.Valid and an
// object), same reading.
func FuzzParseEvent(f *testing.F) {
	// Where encoding/json is subtle: repeated, escaped and case-folded keys.
	for _, seed := range []string{
		`{"choices":[{"delta":{"content":"a"}}],"choices":[{}]}`,
		`{"usage":{"prompt_tokens":5},"usage":{"completion_tokens":3}}`,
		`{"choices":[{"delta":{"CONTENT":"a","content":""}}]}`,
		`{"choices":[{"delta":{"\u0063ontent":"a"}}]}`,
		`{"usage":{"completion_to` + "\u212a" + `ens":3,"prompt_tokens":1}}`,
		`{"choices":[{"finish_reason":"st\u00f6p"}],"x_sent_unix_ns":-9223372036854775808}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast, std chunk
		okFast, okStd := parseChunk(data, &fast), parseChunkStd(data, &std)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if okStd != (json.Valid(data) && len(trimmed) > 0 && trimmed[0] == '{') {
			t.Fatalf("reference says %v for %q", okStd, data)
		}
		if okFast != okStd {
			t.Fatalf("fast %v, reference %v for %q", okFast, okStd, data)
		}
		if !okFast {
			return
		}
		if fast.content != std.content || fast.reasoning != std.reasoning ||
			!bytes.Equal(fast.finish, std.finish) || !bytes.Equal(fast.errVal, std.errVal) ||
			fast.hasUsage != std.hasUsage || fast.usage != std.usage ||
			fast.hasSent != std.hasSent || fast.sent != std.sent {
			t.Fatalf("%q:\nfast %+v\nstd  %+v", data, fast, std)
		}
	})
}

// FuzzStream runs the SSE reader and the stream over any bytes, read with
// a tiny buffer and one byte at a time: it must not panic, must split
// events as a plain reading of the SSE rules does, and must classify.
func FuzzStream(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		want := sseEvents(data)
		tiny := &sseReader{br: &lineReader{buf: make([]byte, 16)}} // the buffer fills and grows often
		tiny.tr = stampReader{r: bytes.NewReader(data), now: ticker()}
		tiny.br.Reset(&tiny.tr)
		pooled := newSSEReader(iotest.OneByteReader(bytes.NewReader(data)), ticker())
		defer pooled.free()
		for name, r := range map[string]*sseReader{"tiny": tiny, "pooled": pooled} {
			var got []event
			for {
				d, _, k, err := r.next()
				if err != nil {
					break
				}
				got = append(got, event{data: string(d), kind: k})
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s reader: %q\ngot  %+v\nwant %+v", name, data, got, want)
			}
		}
		checkStream(t, data)
	})
}

// checkStream runs a stream over data and checks the Record's invariants.
func checkStream(t *testing.T, data []byte) {
	rec := Record{Start: 1, Status: 200}
	s := stream{rec: &rec, scrub: func(s string) string { return s }}
	r := newSSEReader(bytes.NewReader(data), ticker())
	defer r.free()
	err := s.read(r, 0)
	e := (&Client{}).streamFailure(context.Background(), context.Background(), &s, err, "")
	class := OK
	if e != nil {
		class = e.Class
		if e.format(true) == "" || strings.ContainsAny(e.Message, "\n\r") {
			t.Fatalf("message %q", e.Message)
		}
	}
	if class != OK && !slices.Contains(ErrorClasses, class) {
		t.Fatalf("class %q", class)
	}
	n := len(rec.ChunkAt)
	if rec.ReasoningChunks > n || n > 0 && (rec.FirstToken != rec.Start+rec.ChunkAt[0] ||
		rec.LastToken != rec.Start+rec.ChunkAt[n-1] || rec.FirstContent != 0 && rec.FirstContent < rec.FirstToken) {
		t.Fatalf("inconsistent record %+v", rec)
	}
	if !slices.IsSorted(rec.ChunkAt) || rec.OutputTokens() < 0 {
		t.Fatalf("chunks %v, output tokens %d", rec.ChunkAt, rec.OutputTokens())
	}
}

// ticker is a clock that advances by one on every reading.
func ticker() func() time.Duration {
	var t time.Duration
	return func() time.Duration { t++; return t }
}

// sseEvents is a plain reading of the SSE rules sseReader implements, for
// comparison.
func sseEvents(data []byte) []event {
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1] // data ends with a line end
	}
	var events []event
	var values []string
	kind := dataEvent
	for _, l := range append(lines, "") {
		l = strings.TrimSuffix(l, "\r")
		v, isData := strings.CutPrefix(l, "data:")
		if ev, isErr := strings.CutPrefix(l, "error:"); isErr {
			v, kind = ev, errorEvent
		}
		switch {
		case l == "" && values != nil:
			events = append(events, event{data: strings.Join(values, "\n"), kind: kind})
			values, kind = nil, dataEvent
		case l == "data":
			values = append(values, "")
		case isData || strings.HasPrefix(l, "error:"):
			values = append(values, strings.TrimPrefix(v, " "))
		}
	}
	return events
}
