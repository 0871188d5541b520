package secrets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

const key = "sk-PLANTED-key-0042"

func planted() Scrubber {
	return New(client.Config{BaseURL: "http://u:hunter22@127.0.0.1:1/v1", APIKey: key,
		Headers: http.Header{"X-Api-Key": {"hdr-PLANTED-77"}}}, "http://127.0.0.1:2/metrics?token=tok-PLANTED-5")
}

// Every credential the run knows, from each of its sources, is replaced;
// other text is kept.
func TestScrubReplacesEachSource(t *testing.T) {
	t.Parallel()
	s := planted()
	in := "key " + key + ", header hdr-PLANTED-77, password hunter22, metrics tok-PLANTED-5, escaped sk\\u002dPLANTED-key-0042, plain words"
	want := "key [REDACTED], header [REDACTED], password [REDACTED], metrics [REDACTED], escaped [REDACTED], plain words"
	if got := s.Scrub(in); got != want {
		t.Errorf("Scrub\n got %q\nwant %q", got, want)
	}
	var zero Scrubber
	if got := zero.Scrub(in); got != in {
		t.Errorf("the zero Scrubber changed the text: %q", got)
	}
}

// JSON copies a decoded value, scrubbing keys, strings and a number that
// spells a credential, leaving other values as they are; the input is not
// changed.
func TestJSONScrubsKeysAndStrings(t *testing.T) {
	t.Parallel()
	s := New(client.Config{APIKey: "12345678"})
	in := map[string]any{
		"x12345678": "x",
		"plain":     []any{"a " + key, json.Number("12345678"), json.Number("7"), 1.5, true, nil},
		"inner":     map[string]any{"k": "12345678"},
	}
	got := s.JSON(in)
	want := map[string]any{
		"x[REDACTED]": "x",
		"plain":       []any{"a " + key, "[REDACTED]", json.Number("7"), 1.5, true, nil},
		"inner":       map[string]any{"k": "[REDACTED]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("JSON\n got %#v\nwant %#v", got, want)
	}
	if in["inner"].(map[string]any)["k"] != "12345678" {
		t.Error("JSON changed its input")
	}
}

// Error keeps an error that holds no credential, and otherwise wraps it
// under a clean message so that the chain still answers errors.Is.
func TestErrorScrubsTheMessageKeepingTheChain(t *testing.T) {
	t.Parallel()
	s := planted()
	if s.Error(nil) != nil {
		t.Error("Error(nil) is not nil")
	}
	clean := fmt.Errorf("no key here: %w", fs.ErrNotExist)
	if got := s.Error(clean); got != clean {
		t.Errorf("a clean error was replaced: %v", got)
	}
	dirty := fmt.Errorf("server said %s: %w", key, fs.ErrNotExist)
	got := s.Error(dirty)
	if got.Error() != "server said [REDACTED]: file does not exist" || !errors.Is(got, fs.ErrNotExist) || errors.Unwrap(got) != dirty {
		t.Errorf("Error(%q) = %q (Is ErrNotExist: %v)", dirty, got, errors.Is(got, fs.ErrNotExist))
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// Writers scrub each write, report the caller's length, and pass on a
// failed write as a failure of none of it.
func TestWritersScrubEachWrite(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	o, e := planted().Writers(&out, &errb)
	msg := "echo: Bearer " + key + "\n"
	if n, err := fmt.Fprint(o, msg); n != len(msg) || err != nil {
		t.Errorf("Write = %d, %v; want %d, nil", n, err, len(msg))
	}
	fmt.Fprint(e, "to stderr hunter22\n")
	if out.String() != "echo: Bearer [REDACTED]\n" || errb.String() != "to stderr [REDACTED]\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
	if o.Unwrap() != &out || e.Unwrap() != &errb {
		t.Error("Unwrap is not the wrapped writer")
	}
	f, _ := planted().Writers(failWriter{}, failWriter{})
	if n, err := f.Write([]byte("x")); n != 0 || err == nil {
		t.Errorf("a failed write reported %d, %v", n, err)
	}
}

// Serial: it routes the process's standard logger.
func TestRouteLogScrubsBoundsAndDetaches(t *testing.T) {
	var a, b, fallback bytes.Buffer
	goLog.mu.Lock()
	saved := goLog.fallback
	goLog.fallback = &fallback
	goLog.mu.Unlock()
	defer func() { goLog.mu.Lock(); goLog.fallback = saved; goLog.mu.Unlock() }()

	_, wa := planted().Writers(&bytes.Buffer{}, &a)
	_, wb := New(client.Config{}).Writers(&bytes.Buffer{}, &b)
	detachA := RouteLog(wa)
	detachB := RouteLog(wb)
	log.Printf("http: unsolicited\n  response %s", key)
	detachB()
	log.Print("once more")
	detachA()
	log.Print("nobody " + key)

	if want := "toksweep: go: http: unsolicited response [REDACTED]\ntoksweep: go: once more\n"; a.String() != want {
		t.Errorf("first sweep's stderr\n got %q\nwant %q", a.String(), want)
	}
	if want := "toksweep: go: http: unsolicited response " + key + "\n"; b.String() != want {
		t.Errorf("second sweep's stderr (no secrets of its own) %q, want %q", b.String(), want)
	}
	if want := "toksweep: go: nobody " + key + "\n"; fallback.String() != want {
		t.Errorf("with no sweep the log went %q, want %q", fallback.String(), want)
	}
}

// A long log line is cut to maxLogLine bytes at a rune's start, with
// "..." after it.
func TestLogLineIsBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", maxLogLine-1) + "é" + strings.Repeat("b", 50) // é straddles the cut
	want := "toksweep: go: " + strings.Repeat("a", maxLogLine-1) + "...\n"
	if got := logLine(long); got != want {
		t.Errorf("logLine cut to %d bytes, want %d", len(got), len(want))
	}
	if got := logLine("short\tline\n"); got != "toksweep: go: short line\n" {
		t.Errorf("logLine(short) = %q", got)
	}
}
