package app

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOpenLoopTTFTMatchesClosedLoop: below capacity an arrival finds the
// server as idle as a lone closed-loop worker does, so its TTFT (from the
// scheduled instant, client dispatch included) matches C=1's within 10%.
// The prompts are long enough (2000 tokens, unique) that prefill, not the
// client's sub-millisecond dispatch, is what TTFT measures. One retry: the
// simulator's step timing is wall-clock.
func TestOpenLoopTTFTMatchesClosedLoop(t *testing.T) {
	// Serial: it compares two wall-clock TTFTs within 10%.
	common := []string{"--sim", "--requests", "12", "--max-tokens", "16", "--input-tokens", "2000", "--metrics-url", "off"}
	ttft := func(extra ...string) float64 {
		out := filepath.Join(t.TempDir(), "run")
		args := append(append([]string{"sweep", "--out", out}, common...), extra...)
		if code, _, stderr := runCLI(t, context.Background(), args...); code != ExitOK {
			t.Fatalf("%v: exit %d\n%s", extra, code, stderr)
		}
		v, err := strconv.ParseFloat(readLevels(t, out)[0]["ttft_p50_ms"], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// At 4 req/s the arrivals are 250 ms apart and a request (about 100 ms
	// of prefill and 16 tokens) is done before the next one comes.
	var closed, open float64
	for try := 0; try < 2; try++ {
		closed = ttft("--levels", "1")
		open = ttft("--rates", "4", "--arrival", "constant", "--seed", "1")
		if math.Abs(open/closed-1) <= 0.10 {
			t.Logf("TTFT p50: closed loop C=1 %.1f ms, open loop 4 req/s %.1f ms", closed, open)
			return
		}
	}
	t.Errorf("TTFT p50: open loop at 4 req/s %.1f ms vs closed loop C=1 %.1f ms: more than 10%% apart", open, closed)
}
