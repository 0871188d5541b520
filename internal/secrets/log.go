package secrets

import (
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxLogLine bounds a line of Go's own log (net/http quotes up to 4 KB of
// a server's bytes in "Unsolicited response received on idle HTTP
// channel").
const maxLogLine = 300

// logSink is where Go's standard logger writes once a sweep has started:
// each line goes, scrubbed, made one line and cut to maxLogLine, to the
// stderr of every sweep running (one, outside tests), or to fallback
// (os.Stderr) when none is.
type logSink struct {
	mu       sync.Mutex
	to       []*Writer
	once     sync.Once
	fallback io.Writer
}

var goLog = &logSink{fallback: os.Stderr}

// RouteLog routes Go's standard logger (where net/http logs, quoting a
// server's bytes) to w until detach is called.
func RouteLog(w *Writer) (detach func()) { return goLog.attach(w) }

// attach routes the standard logger to w until detach is called.
func (l *logSink) attach(w *Writer) (detach func()) {
	l.once.Do(func() {
		log.SetOutput(l)
		log.SetFlags(0)
		log.SetPrefix("")
	})
	l.mu.Lock()
	l.to = append(l.to, w)
	l.mu.Unlock()
	return func() {
		l.mu.Lock()
		l.to = slices.DeleteFunc(l.to, func(x *Writer) bool { return x == w })
		l.mu.Unlock()
	}
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.to) == 0 {
		_, _ = io.WriteString(l.fallback, logLine(string(p)))
	}
	for _, w := range l.to {
		_, _ = io.WriteString(w, logLine(w.scrub.Scrub(string(p)))) // scrubbed whole, before the cut
	}
	return len(p), nil
}

// logLine makes a log message one bounded line of toksweep's.
func logLine(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxLogLine {
		cut := maxLogLine
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	return "toksweep: go: " + msg + "\n"
}
