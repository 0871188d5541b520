package client

import (
	"bufio"
	"errors"
	"io"
	"sync"
	"time"
)

const (
	// sseBufSize is the line buffer, one per stream in flight. Chunks are
	// far smaller (~300 bytes), so ReadSlice almost never has to accumulate
	// a line. On a paced stream each read holds an event or two whatever
	// the size; only a backlog fills it, and there 8 KiB costs ~10% more
	// per chunk than 64 KiB (BenchmarkDo) while 64 KiB per stream was
	// nearly half of toksweep's memory at 1000 streams (bench/results.md).
	sseBufSize = 8 << 10
	// maxEvent bounds what one line or event may hold. A longer one ends
	// the stream with errEventTooLong (class overrun): a server sending one
	// endless line must not hold the request until its timeout.
	maxEvent = 4 << 20
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
	br   *bufio.Reader
	data []byte // the current event's data
	long []byte // a line longer than br's buffer
	err  error  // the end of input, once seen
}

var readerPool = sync.Pool{New: func() any {
	return &sseReader{br: bufio.NewReaderSize(nil, sseBufSize)}
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
	if cap(s.long) > sseBufSize {
		s.long = nil
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
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		line, err = s.longLine(line)
	}
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

// longLine accumulates a line that does not fit the buffer, up to maxEvent
// bytes; a longer one is errEventTooLong.
func (s *sseReader) longLine(part []byte) ([]byte, error) {
	s.long = append(s.long[:0], part...)
	for {
		part, err := s.br.ReadSlice('\n')
		if len(s.long)+len(part) > maxEvent+len("data: \r\n") {
			return nil, errEventTooLong
		}
		s.long = append(s.long, part...)
		if err != bufio.ErrBufferFull {
			return s.long, err
		}
	}
}
