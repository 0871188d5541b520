package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/client"
)

// ClassCount is the number of failed requests of one error class.
type ClassCount struct {
	Class client.ErrorClass
	Count int
}

// ErrorCounts holds one ClassCount per client.ErrorClasses class, in that
// order. In JSON it is an object keyed by class, in the same order.
type ErrorCounts []ClassCount

// Compile-time checks: ErrorCounts keeps its order through JSON.
var (
	_ json.Marshaler   = ErrorCounts(nil)
	_ json.Unmarshaler = (*ErrorCounts)(nil)
)

func newErrorCounts() ErrorCounts {
	e := make(ErrorCounts, len(client.ErrorClasses))
	for i, c := range client.ErrorClasses {
		e[i].Class = c
	}
	return e
}

// add counts one failure of class c; a class outside client.ErrorClasses is
// not counted here (it still counts in RequestsFailed).
func (e ErrorCounts) add(c client.ErrorClass) {
	for i := range e {
		if e[i].Class == c {
			e[i].Count++
			return
		}
	}
}

// Count returns the number of failures of class c.
func (e ErrorCounts) Count(c client.ErrorClass) int {
	for _, cc := range e {
		if cc.Class == c {
			return cc.Count
		}
	}
	return 0
}

// String lists the non-zero classes as "http_5xx=3 timeout=1", or returns ""
// when there are none.
func (e ErrorCounts) String() string {
	var parts []string
	for _, cc := range e {
		if cc.Count > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", cc.Class, cc.Count))
		}
	}
	return strings.Join(parts, " ")
}

// MarshalJSON writes {"http_4xx": 0, ...} in class order (a Go map would
// sort the keys alphabetically).
func (e ErrorCounts) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, cc := range e {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(string(cc.Class))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%s:%d", key, cc.Count)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads the object written by MarshalJSON. The result has
// every client.ErrorClasses class in order, then any unknown class found in
// the input, sorted by name.
func (e *ErrorCounts) UnmarshalJSON(data []byte) error {
	var m map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := newErrorCounts()
	for i := range out {
		out[i].Count = m[string(out[i].Class)]
		delete(m, string(out[i].Class))
	}
	extra := make([]string, 0, len(m))
	for k := range m {
		extra = append(extra, k)
	}
	slices.Sort(extra)
	for _, k := range extra {
		out = append(out, ClassCount{client.ErrorClass(k), m[k]})
	}
	*e = out
	return nil
}
