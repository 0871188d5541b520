package secrets

import (
	"io"
	"sync"
)

// Writer scrubs each write before it reaches the writer it wraps. Every
// write toksweep makes is a whole message (one Fprintf), so a secret is
// never split across two.
type Writer struct {
	w     io.Writer
	scrub Scrubber
	mu    *sync.Mutex
}

// Writers wraps a command's stdout and stderr in Writers that share one
// lock (one for both streams and Go's log, RouteLog).
func (s Scrubber) Writers(stdout, stderr io.Writer) (out, errw *Writer) {
	mu := new(sync.Mutex)
	return &Writer{w: stdout, scrub: s, mu: mu}, &Writer{w: stderr, scrub: s, mu: mu}
}

func (w *Writer) Write(p []byte) (int, error) {
	clean := w.scrub.Scrub(string(p))
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := io.WriteString(w.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap is the writer w writes to (a terminal is judged by it).
func (w *Writer) Unwrap() io.Writer { return w.w }
