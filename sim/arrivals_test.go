package sim

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"
)

// With RecordArrivals the server keeps when each generation request
// reached it (not /v1/models), and Stats counts the prefix cache in tokens:
// two token-id prompts sharing their first 48 ids hit 48 (three blocks of
// 16) on the second.
func TestArrivalsAndPrefixStats(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.RecordArrivals = true
	s, url := startSim(t, cfg)
	ids := func(tail int) []int {
		out := make([]int, 0, 60)
		for i := range 48 {
			out = append(out, 1000+i)
		}
		for i := range 12 {
			out = append(out, tail+i)
		}
		return out
	}
	before := time.Now()
	for _, tail := range []int{5000, 6000} {
		resp := post(t, context.Background(), url+"/v1/completions", map[string]any{"model": "test-model", "prompt": ids(tail), "max_tokens": 2})
		decodeBody(t, resp)
	}
	resp := post(t, context.Background(), url+"/v1/chat/completions", map[string]any{"model": "nope", "messages": []any{}})
	resp.Body.Close()
	after := time.Now()
	got := s.Arrivals()
	if len(got) != 3 {
		t.Fatalf("%d arrivals, want 3 (two completions, one refused chat)", len(got))
	}
	for i, a := range got {
		if a.Before(before) || a.After(after) || i > 0 && a.Before(got[i-1]) {
			t.Errorf("arrival %d at %v, outside [%v, %v] or out of order", i, a, before, after)
		}
	}
	st := s.Stats()
	if st.PrefixQueried != 120 || st.PrefixHits != 48 {
		t.Errorf("prefix cache queried %d, hit %d; want 120, 48", st.PrefixQueried, st.PrefixHits)
	}
	// GET /debug/arrivals serves the same stamps as wall-clock UnixNano.
	var reply ArrivalsReply
	getJSON(t, url+"/debug/arrivals", http.StatusOK, &reply)
	if len(reply.UnixNano) != len(got) {
		t.Fatalf("/debug/arrivals has %d stamps, want %d", len(reply.UnixNano), len(got))
	}
	for i, ns := range reply.UnixNano {
		if ns != got[i].UnixNano() {
			t.Errorf("/debug/arrivals stamp %d is %d, want %d", i, ns, got[i].UnixNano())
		}
	}
	off, offURL := startSim(t, testConfig())
	if n := len(off.Arrivals()); n != 0 {
		t.Errorf("%d arrivals kept without RecordArrivals", n)
	}
	// Off by default: no endpoint (the catch-all's 404).
	getJSON(t, offURL+"/debug/arrivals", http.StatusNotFound, nil)
}

// getJSON GETs url, checks the status and decodes the body into v (when
// not nil).
func getJSON(t *testing.T, url string, status int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("GET %s: status %d, want %d", url, resp.StatusCode, status)
	}
	if v != nil {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
	}
}

// A handler preempted between reading the clock and taking the log's lock
// appends its stamp after later ones (a CI run at load 3 saw one 27 ms
// behind): Arrivals still returns them earliest first, so that the k-th
// is the k-th request to arrive.
func TestArrivalsAreSorted(t *testing.T) {
	var s Server
	t0 := time.Now()
	for _, ms := range []int{0, 30, 3, 27, 31} {
		s.arrivals.addFrom(t0.Add(time.Duration(ms)*time.Millisecond), "")
	}
	got := s.Arrivals()
	var off []int
	for _, a := range got {
		off = append(off, int(a.Sub(t0)/time.Millisecond))
	}
	if want := []int{0, 3, 27, 30, 31}; !slices.Equal(off, want) {
		t.Errorf("arrivals at %v ms, want %v", off, want)
	}
}
