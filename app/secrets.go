package app

import (
	"encoding/json"
	"errors"
	"io"
	"log"
	"os"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// scrubber returns a function that replaces every credential the options
// hold (the API key, the userinfo and credential-like query values of --url
// and --metrics-url, credential-like --header values), in every form the
// client's Scrubber finds, with [REDACTED]. The client scrubs its own
// messages; this covers everything else toksweep prints or saves.
func (o *options) scrubber() func(string) string {
	cfg := client.Config{BaseURL: o.URL, APIKey: o.APIKey, Headers: o.Headers}
	return client.Scrubber(cfg, o.Work.MetricsURL)
}

// guardSecrets runs a command with stdout and stderr that scrub every
// known secret from what is written, with Go's standard logger (where
// net/http logs, quoting a server's bytes) routed to that stderr, and
// scrubs the error it returns: whatever a server echoes, no credential
// reaches the terminal.
func (o *options) guardSecrets(stdout, stderr io.Writer, run func(stdout, stderr io.Writer) error) error {
	scrub := o.scrubber()
	var mu sync.Mutex // one lock for both streams and the log
	out := &scrubWriter{w: stdout, scrub: scrub, mu: &mu}
	errw := &scrubWriter{w: stderr, scrub: scrub, mu: &mu}
	defer goLog.attach(errw)()
	return scrubError(run(out, errw), scrub)
}

// scrubWriter scrubs each write. Every write toksweep makes is a whole
// message (one Fprintf), so a secret is never split across two.
type scrubWriter struct {
	w     io.Writer
	scrub func(string) string
	mu    *sync.Mutex
}

func (s *scrubWriter) Write(p []byte) (int, error) {
	clean := s.scrub(string(p))
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// scrubError returns err with its message scrubbed, keeping what Exit
// reads from it (a UsageError, ErrInterrupted in the chain).
func scrubError(err error, scrub func(string) string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := scrub(msg)
	if clean == msg {
		return err
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return &UsageError{Msg: scrub(ue.Msg)}
	}
	return &scrubbedError{msg: clean, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// maxGoLogLine bounds a line of Go's own log (net/http quotes up to 4 KB
// of a server's bytes in "Unsolicited response received on idle HTTP
// channel").
const maxGoLogLine = 300

// logSink is where Go's standard logger writes once a sweep has started:
// each line goes, scrubbed, made one line and cut to maxGoLogLine, to the
// stderr of every sweep running (one, outside tests), or to os.Stderr when
// none is.
type logSink struct {
	mu   sync.Mutex
	to   []*scrubWriter
	once sync.Once
}

var goLog = &logSink{}

// attach routes the standard logger to w until detach is called.
func (l *logSink) attach(w *scrubWriter) (detach func()) {
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
		l.to = slices.DeleteFunc(l.to, func(x *scrubWriter) bool { return x == w })
		l.mu.Unlock()
	}
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.to) == 0 {
		_, _ = io.WriteString(os.Stderr, goLogLine(string(p)))
	}
	for _, w := range l.to {
		_, _ = io.WriteString(w, goLogLine(w.scrub(string(p)))) // scrubbed whole, before the cut
	}
	return len(p), nil
}

// goLogLine makes a log message one bounded line of toksweep's.
func goLogLine(msg string) string {
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > maxGoLogLine {
		cut := maxGoLogLine
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	return "toksweep: go: " + msg + "\n"
}

// scrubConfig redacts a known secret wherever else the recorded
// configuration repeats it: a header not named like a credential, any key
// or string of --extra-body, the model, the prompt source.
func (o *options) scrubConfig(r *report.RunConfig) {
	scrub := o.scrubber()
	for k, v := range r.Headers {
		r.Headers[k] = scrub(v)
	}
	if r.ExtraBody != nil { // a copy: o.ExtraBody is what is sent
		r.ExtraBody, _ = scrubJSON(r.ExtraBody, scrub).(map[string]any)
	}
	r.Model, r.PromptSource = scrub(r.Model), scrub(r.PromptSource)
}

// scrubJSON copies a decoded JSON value with every key and string scrubbed.
func scrubJSON(v any, scrub func(string) string) any {
	switch x := v.(type) {
	case string:
		return scrub(x)
	case json.Number:
		if s := scrub(string(x)); s != string(x) {
			return s
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[scrub(k)] = scrubJSON(e, scrub)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = scrubJSON(e, scrub)
		}
		return a
	}
	return v
}
