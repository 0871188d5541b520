package app

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// TestOpenLoopTTFTMatchesClosedLoop: below capacity an arrival finds the
// server as idle as a lone closed-loop worker does, so its TTFT (from the
// scheduled instant, client dispatch included) matches C=1's within 10%.
// The prompts are long enough (2000 tokens, unique) that prefill, not the
// client's sub-millisecond dispatch, is what TTFT measures. The two runs go
// at once, each with a simulator of its own, so that both see the same
// machine; the simulator's step timing is wall-clock, so a miss is run
// again (up to timingAttempts).
func TestOpenLoopTTFTMatchesClosedLoop(t *testing.T) {
	// Serial: the open loop's TTFT counts the client's dispatch, which a busy machine delays (20% under the parallel tests).
	common := []string{"--sim", "--requests", "8", "--max-tokens", "16", "--input-tokens", "2000", "--metrics-url", "off"}
	// At 4 req/s the arrivals are 250 ms apart and a request (about 100 ms
	// of prefill and 16 tokens) is done before the next one comes.
	modes := [][]string{{"--levels", "1"}, {"--rates", "4", "--arrival", "constant", "--seed", "1"}}
	var closed, open float64
	for try := 1; try <= timingAttempts; try++ {
		var outs [2]string
		var codes [2]int
		var stderrs [2]string
		var wg sync.WaitGroup
		for i, extra := range modes {
			outs[i] = filepath.Join(t.TempDir(), "run")
			wg.Go(func() {
				args := append(append([]string{"sweep", "--out", outs[i]}, common...), extra...)
				codes[i], _, stderrs[i] = runCLI(t, context.Background(), args...)
			})
		}
		wg.Wait()
		var ttft [2]float64
		for i, extra := range modes {
			if codes[i] != ExitOK {
				t.Fatalf("%v: exit %d\n%s", extra, codes[i], stderrs[i])
			}
			v, err := strconv.ParseFloat(readLevels(t, outs[i])[0]["ttft_p50_ms"], 64)
			if err != nil {
				t.Fatal(err)
			}
			ttft[i] = v
		}
		closed, open = ttft[0], ttft[1]
		if math.Abs(open/closed-1) <= 0.10 {
			t.Logf("TTFT p50: closed loop C=1 %.1f ms, open loop 4 req/s %.1f ms", closed, open)
			return
		}
		t.Logf("attempt %d: TTFT p50: closed loop C=1 %.1f ms, open loop 4 req/s %.1f ms", try, closed, open)
	}
	t.Errorf("TTFT p50: open loop at 4 req/s %.1f ms vs closed loop C=1 %.1f ms: more than 10%% apart", open, closed)
}
