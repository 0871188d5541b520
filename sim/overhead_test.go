package sim

import (
	"testing"
	"time"
)

// A request's overhead (fixed plus per prompt token) passes before it joins
// the queue: while it lasts the request is neither running nor waiting, and
// its first token comes no sooner than the overhead after it arrived.
func TestRequestOverheadHoldsNoSlot(t *testing.T) {
	cfg := testConfig()
	cfg.RecordArrivals = true
	cfg.RequestOverhead, cfg.RequestOverheadPerToken = 700*time.Millisecond, 10*time.Millisecond
	s, url := startSim(t, cfg)
	body := chatBody("one two three four five", 4)
	prompt := ChatPromptTokens("one two three four five")
	type result struct {
		evs []sseEvent
		err error
	}
	done := make(chan result, 1)
	go func() {
		evs, err := fetchStream(url+"/v1/chat/completions", body)
		done <- result{evs, err}
	}()
	var arrived time.Time
	for arrived.IsZero() {
		if a := s.Arrivals(); len(a) > 0 {
			arrived = a[0]
		}
		time.Sleep(time.Millisecond)
	}
	if st := s.Stats(); st.Running+st.Waiting != 0 && time.Since(arrived) < cfg.RequestOverhead {
		t.Errorf("during the overhead: %d running, %d waiting, want none", st.Running, st.Waiting)
	}
	r := <-done
	if r.err != nil || len(r.evs) == 0 {
		t.Fatalf("stream: %v", r.err)
	}
	want := cfg.RequestOverhead + time.Duration(prompt)*cfg.RequestOverheadPerToken
	if got := r.evs[0].at.Sub(arrived); got < want {
		t.Errorf("first event %v after arrival, want at least the overhead %v", got, want)
	}
	if _, err := New(Config{MaxModelLen: 16, MaxNumSeqs: 1, PrefillTokensPerSec: 1, DecodeBase: 1, RequestOverhead: -1}); err == nil {
		t.Error("a negative overhead was accepted")
	}
}
