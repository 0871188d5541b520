package progress

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"
)

// Every is how often a live line is redrawn on a terminal.
const Every = 250 * time.Millisecond

// IsTerminal reports whether w writes to a terminal. A writer that wraps
// another (Unwrap() io.Writer: the scrubbing writers of internal/secrets)
// is judged by the one it wraps.
func IsTerminal(w io.Writer) bool {
	if s, ok := w.(interface{ Unwrap() io.Writer }); ok {
		w = s.Unwrap()
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
