package client

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"time"
)

const (
	// sseBufSize is the line buffer a stream starts with, one per stream in
	// flight. Chunks are far smaller (~300 bytes), and on a paced stream
	// each read holds an event or two. It was 8 KiB: at 1000 streams that
	// was 8 MB of live heap, ~16 MB of RSS with GC headroom. 2 KiB saves
	// most of it, and where the stream is a backlog (BenchmarkDo) it costs
	// ~10% per chunk where 1 KiB costs 20-50% (bench/results.md,
	// "Per-stream memory at C=1000, after").
	sseBufSize = 2 << 10
	// maxEvent bounds what one line or event may hold. A longer one ends
	// the stream with errEventTooLong (class overrun): a server sending one
	// endless line must not hold the request until its timeout. Only a
	// line longer than the buffer grows it, doubling, up to maxLine bytes.
	maxEvent = 4 << 20
	maxLine  = maxEvent + len("data: \r\n")
)

// errEventTooLong is a line or an event longer than maxEvent.
var errEventTooLong = errors.New("an SSE line or event longer than 4 MiB")

// stampReader records when each read that returned data completed: one
// clock read per network read, not per line.
type stampReader struct {
	r    io.Reader
	now  func() time.Duration
	last time.Duration
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.last = s.now()
	}
	return n, err
}

// eventKind tells data events from the error field some servers send.
type eventKind uint8

const (
	dataEvent  eventKind = iota
	errorEvent           // an "error:" field (llama.cpp), which is not SSE but is an error
)

// sseReader splits a text/event-stream into events. It accepts LF or CRLF
// line ends, "data:" with or without the space, joins several data lines
// with "\n", and ignores comments and the event, id and retry fields.
type sseReader struct {
	tr   stampReader
	br   *lineReader
	data []byte // the current event's data
	err  error  // the end of input, once seen
}

var readerPool = sync.Pool{New: func() any {
	return &sseReader{br: new(lineReader)}
}}

// newSSEReader returns a pooled reader over r; release it with free.
func newSSEReader(r io.Reader, now func() time.Duration) *sseReader {
	s := readerPool.Get().(*sseReader)
	s.tr = stampReader{r: r, now: now}
	s.br.Reset(&s.tr)
	s.err = nil
	return s
}

func (s *sseReader) free() {
	s.tr = stampReader{}
	s.br.Reset(nil)
	if cap(s.br.buf) > sseBufSize {
		s.br.buf = nil // a long line's buffer is not kept
	}
	if cap(s.data) > sseBufSize {
		s.data = nil
	}
	readerPool.Put(s)
}

// next returns the next event's data, the arrival time of its last data
// line, and its kind. An event not followed by a blank line at a clean end
// of input is still returned, one cut by a read error is not; err is set
// (io.EOF at a clean end) only when no event is left.
// The data is valid until the next call.
func (s *sseReader) next() ([]byte, time.Duration, eventKind, error) {
	s.data = s.data[:0]
	lines, k := 0, dataEvent
	var at time.Duration
	for {
		line, err := s.line()
		if err != nil || len(line) == 0 {
			if lines > 0 && (err == nil || err == io.EOF) {
				return s.data, at, k, nil
			}
			if err != nil {
				return nil, 0, k, err // a read error cuts the pending event short: drop it
			}
			continue
		}
		var value []byte
		switch {
		case len(line) >= 5 && string(line[:5]) == "data:":
			value = line[5:]
		case string(line) == "data":
		case len(line) >= 6 && string(line[:6]) == "error:":
			value, k = line[6:], errorEvent
		default:
			continue // a comment, event:, id:, retry: or an unknown field
		}
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		if len(s.data)+min(lines, 1)+len(value) > maxEvent {
			s.err = errEventTooLong
			return nil, 0, k, s.err
		}
		if lines > 0 {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		lines++
		at = s.tr.last
	}
}

// line returns the next line without its line end. A last line without one
// is returned too at a clean end of input; io.EOF comes with the next call.
func (s *sseReader) line() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	line, err := s.br.readLine(maxLine)
	if err != nil {
		s.err = err
		if len(line) == 0 || err != io.EOF {
			return nil, err
		}
	}
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
	}
	if n > 0 && line[n-1] == '\r' {
		n--
	}
	return line[:n], nil
}

// lineReader is a buffered reader that splits lines, like bufio.Reader's
// ReadSlice, but with a buffer that grows on demand: it starts at
// sseBufSize and doubles only to hold a line that does not fit, up to
// the limit readLine is given. Each fill is one Read of the underlying
// reader, so the data is read as it comes, chunk by chunk.
type lineReader struct {
	rd   io.Reader
	buf  []byte
	r, w int   // buf[r:w] is read and not yet returned
	err  error // the underlying reader's error, returned once buf[r:w] is used up
}

// Reset makes b read from rd, keeping its buffer.
func (b *lineReader) Reset(rd io.Reader) {
	*b = lineReader{rd: rd, buf: b.buf}
}

// readLine returns the next line with its '\n', valid until the next call,
// or at the end of input the rest without one, with the error.
// A line longer than limit bytes is errEventTooLong.
func (b *lineReader) readLine(limit int) ([]byte, error) {
	scanned := 0 // buf[r:r+scanned] has no '\n'
	for {
		if i := bytes.IndexByte(b.buf[b.r+scanned:b.w], '\n'); i >= 0 {
			n := scanned + i + 1
			if n > limit {
				return nil, errEventTooLong
			}
			line := b.buf[b.r : b.r+n]
			b.r += n
			return line, nil
		}
		scanned = b.w - b.r
		if scanned > limit {
			return nil, errEventTooLong
		}
		if b.err != nil {
			line, err := b.buf[b.r:b.w], b.err
			b.r, b.err = b.w, nil
			return line, err
		}
		b.fill(limit)
	}
}

// fill reads once into the buffer: it moves what is left to the front,
// grows the buffer (doubling, to at most limit+1 bytes) when a line does
// not fit, and sets b.err if the read fails or keeps returning nothing.
func (b *lineReader) fill(limit int) {
	if b.r > 0 {
		b.w = copy(b.buf, b.buf[b.r:b.w])
		b.r = 0
	}
	if b.w == len(b.buf) {
		buf := make([]byte, min(max(2*len(b.buf), sseBufSize), limit+1))
		copy(buf, b.buf[:b.w])
		b.buf = buf
	}
	for range 100 { // as bufio.Reader: a reader that keeps returning 0, nil is broken
		n, err := b.rd.Read(b.buf[b.w:])
		b.w += n
		if err != nil {
			b.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	b.err = io.ErrNoProgress
}

// Read reads what is buffered, then from the underlying reader (to drain a
// body after [DONE]).
func (b *lineReader) Read(p []byte) (int, error) {
	if b.r < b.w {
		n := copy(p, b.buf[b.r:b.w])
		b.r += n
		return n, nil
	}
	if err := b.err; err != nil {
		b.err = nil
		return 0, err
	}
	return b.rd.Read(p)
}
