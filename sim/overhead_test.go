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

// The overhead's per-sequence parts count the other requests held, at most
// MaxNumSeqs−1 of them: hand-made counts, the cap, and none beside.
func TestOverheadGrowsWithTheRequestsHeld(t *testing.T) {
	c := Config{MaxNumSeqs: 4, RequestOverhead: time.Millisecond, RequestOverheadPerToken: 10 * time.Microsecond,
		RequestOverheadPerSeq: 2 * time.Millisecond, RequestOverheadPerTokenPerSeq: 3 * time.Microsecond}
	for _, tc := range []struct {
		prompt, others int
		want           time.Duration
	}{
		{100, 0, 2 * time.Millisecond},    // 1ms + 100×10µs
		{100, 2, 6600 * time.Microsecond}, // + 2×(2ms + 100×3µs)
		{100, 9, 8900 * time.Microsecond}, // 9 held, 3 count
		{0, 1, 3 * time.Millisecond},
	} {
		if got := c.overhead(tc.prompt, tc.others); got != tc.want {
			t.Errorf("overhead(%d prompt tokens, %d others) = %v, want %v", tc.prompt, tc.others, got, tc.want)
		}
	}
}

// A request sent while another is held waits its overhead's per-sequence
// part on top; the first, alone, does not.
func TestOverheadPerSeqServed(t *testing.T) {
	cfg := testConfig()
	cfg.DecodeBase = 5 * time.Millisecond
	cfg.RequestOverheadPerSeq = 400 * time.Millisecond
	s, url := startSim(t, cfg)
	type result struct {
		evs []sseEvent
		err error
	}
	run := func(out chan<- result) {
		evs, err := fetchStream(url+"/v1/chat/completions", chatBody("one two three", 200))
		out <- result{evs, err}
	}
	first, second := make(chan result, 1), make(chan result, 1)
	start := time.Now()
	go run(first)
	for s.Stats().Running == 0 {
		time.Sleep(time.Millisecond)
	}
	sent := time.Now()
	go run(second)
	a, b := <-first, <-second
	if a.err != nil || b.err != nil || len(a.evs) == 0 || len(b.evs) == 0 {
		t.Fatalf("streams: %v, %v", a.err, b.err)
	}
	if got := a.evs[0].at.Sub(start); got >= cfg.RequestOverheadPerSeq {
		t.Errorf("the first request, alone, waited %v for its first event, want under %v", got, cfg.RequestOverheadPerSeq)
	}
	if got := b.evs[0].at.Sub(sent); got < cfg.RequestOverheadPerSeq {
		t.Errorf("the second request, beside the first, waited %v for its first event, want at least %v", got, cfg.RequestOverheadPerSeq)
	}
}
