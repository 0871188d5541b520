package trace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Window is a slice of a trace's time, --trace-window START:DURATION: the
// requests at instants in [Start, Start+Duration). The zero Window is the
// whole trace.
type Window struct {
	Start, Duration time.Duration
}

// ParseWindow parses START:DURATION, each a Go duration ("10m:5m") or a
// number of seconds ("600:300").
func ParseWindow(s string) (Window, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return Window{}, fmt.Errorf("--trace-window %q: want START:DURATION, such as 10m:5m", s)
	}
	start, err1 := parseSpan(a)
	dur, err2 := parseSpan(b)
	switch {
	case err1 != nil:
		return Window{}, fmt.Errorf("--trace-window %q: START: %v", s, err1)
	case err2 != nil:
		return Window{}, fmt.Errorf("--trace-window %q: DURATION: %v", s, err2)
	case dur <= 0:
		return Window{}, fmt.Errorf("--trace-window %q: DURATION must be positive", s)
	}
	return Window{Start: start, Duration: dur}, nil
}

func parseSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > MaxSpan.Seconds() {
			return 0, fmt.Errorf("%q is neither a duration (90s, 5m) nor seconds within %v", s, MaxSpan)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d < 0 || d > MaxSpan {
		return 0, fmt.Errorf("%v: want 0 to %v", d, MaxSpan)
	}
	return d, nil
}

// String is the window as the flag writes it.
func (w Window) String() string {
	if w == (Window{}) {
		return ""
	}
	return w.Start.String() + ":" + w.Duration.String()
}

// Slice returns the trace of the requests in w, their instants made
// relative to w.Start (so a replay of the slice starts at once). A session's
// turn whose parent falls outside w keeps its Parent, which the replay then
// does not find and so does not wait for. An empty slice is an error.
func (t *Trace) Slice(w Window) (*Trace, error) {
	if w == (Window{}) {
		return t, nil
	}
	out := *t
	out.Requests = nil
	for _, r := range t.Requests {
		if r.At >= w.Start && r.At-w.Start < w.Duration {
			r.At -= w.Start
			out.Requests = append(out.Requests, r)
		}
	}
	if len(out.Requests) == 0 {
		span := time.Duration(0)
		if n := len(t.Requests); n > 0 {
			span = t.Requests[n-1].At
		}
		return nil, fmt.Errorf("--trace-window %s holds no request of %s (its span is %v)", w, t.Name, span)
	}
	return &out, nil
}
