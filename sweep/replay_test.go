package sweep_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/internal/testkit/sendtiming"
	"github.com/toksweep/toksweep/internal/tokcount"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/simtest"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

// writeMooncake writes sendtiming.Mooncake(n, rate) to a file of its own
// (the trace of the replay tests and of both send-timing benchmarks).
func writeMooncake(t testing.TB, n int, rate float64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := os.WriteFile(path, sendtiming.Mooncake(n, rate), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replayOf is the sweep's Replay of a trace with token-id prompts.
func replayOf(tr *trace.Trace) *sweep.Replay { return sendtiming.Replay(tr) }

// A 300-request Mooncake trace replayed against the simulator at speeds
// 1, 2 and 4: the records' scheduled instants are the trace's over the
// speed, the simulator's prefix-hit rate is the trace's block reuse within
// 2 points, and with token-id prompts every input length is the trace's
// exactly.
func TestReplayMooncakeAgainstSim(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6 s replay")
	}
	tr, err := trace.ReadFile(writeMooncake(t, 300, 100), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := trace.Summarize(tr)
	t.Logf("trace: %d requests over %v, mean %.1f/s, peak %d in 1 s, block reuse %.4f", sum.Requests, sum.Span, sum.MeanRate, sum.PeakRate1s, sum.PrefixReuse)
	rp := replayOf(tr)
	for _, speed := range []float64{1, 2, 4} {
		var errs []string
		for attempt := 1; attempt <= 3; attempt++ {
			if errs = replayOnce(t, tr, rp, speed, sum.PrefixReuse); len(errs) == 0 {
				break
			}
			t.Logf("speed %g, attempt %d: %s", speed, attempt, strings.Join(errs, "; "))
		}
		for _, e := range errs {
			t.Errorf("speed %g: %s", speed, e)
		}
	}
}

// replayOnce replays tr at speed against a fresh simulator and says what
// is wrong, nothing when all is well.
func replayOnce(t *testing.T, tr *trace.Trace, rp *sweep.Replay, speed, reuse float64) []string {
	lvl, _, st := replayAgainstSim(t, rp, speed, replayStep)
	var errs []string
	if n := len(lvl.Records); n != len(tr.Requests) {
		return []string{fmt.Sprintf("%d records, want %d", n, len(tr.Requests))}
	}
	// Input lengths: exact.
	wrong := 0
	for _, r := range lvl.Records {
		if !r.OK() || r.PromptTokens != tr.Requests[r.Worker].Input {
			wrong++
		}
	}
	if wrong > 0 {
		errs = append(errs, fmt.Sprintf("%d requests failed or had an input length not the trace's", wrong))
	}
	// Schedule: the records' scheduled instants are the trace's over the
	// speed, exactly.
	sched := make([]time.Duration, 0, len(lvl.Records))
	for _, r := range lvl.Records {
		sched = append(sched, r.Sched)
	}
	slices.Sort(sched)
	for i, s := range sched {
		if want := time.Duration(float64(tr.Requests[i].At) / speed); absDur(s-sched[0]-want) > time.Microsecond {
			errs = append(errs, fmt.Sprintf("request %d scheduled at %v, want %v", i, s-sched[0], want))
			break
		}
	}
	// The sends' timing against the server's arrival stamps is
	// TestReplaySendsOnSchedule's (sendtiming_test.go).
	hit := float64(st.PrefixHits) / float64(st.PrefixQueried)
	t.Logf("speed %g: prefix hit %.4f against the trace's block reuse %.4f", speed, hit, reuse)
	if math.Abs(hit-reuse) > 0.02 {
		errs = append(errs, fmt.Sprintf("prefix hit %.4f, trace's block reuse %.4f", hit, reuse))
	}
	return errs
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// A Bailian-format session trace whose follow-ups are stamped before their
// parents can have finished (10 ms after, with 40-token replies at 2 ms a
// token): no turn is sent before its parent's end, its scheduled instant
// is that end, and its history holds the parent's prompt and the reply the
// parent streamed (the simulator counts the tokens).
func TestReplayBailianWaitsForParents(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for s := range 4 {
		base := float64(s) * 0.05
		fmt.Fprintf(&b, `{"chat_id": %d, "parent_chat_id": -1, "timestamp": %g, "input_length": 60, "output_length": 40, "turn": 1, "hash_ids": [%d, %d, %d, %d]}`+"\n", 10*s, base, 100*s, 100*s+1, 100*s+2, 100*s+3)
		fmt.Fprintf(&b, `{"chat_id": %d, "parent_chat_id": %d, "timestamp": %g, "input_length": 130, "output_length": 40, "turn": 2, "hash_ids": [%d, %d, %d]}`+"\n", 10*s+1, 10*s, base+0.01, 100*s, 100*s+1, 100*s+2)
		fmt.Fprintf(&b, `{"chat_id": %d, "parent_chat_id": %d, "timestamp": %g, "input_length": 200, "output_length": 5, "turn": 3}`+"\n", 10*s+2, 10*s+1, base+0.02)
	}
	tr, err := trace.Read(strings.NewReader(b.String()), "bailian", trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := simtest.NewServer(sim.Config{Model: "m", MaxModelLen: 4096, MaxNumSeqs: 64, PrefillTokensPerSec: 1e8, DecodeBase: 2 * time.Millisecond})
	defer srv.Close()
	cl, err := client.New(client.Config{BaseURL: srv.URL + "/v1", Model: "m", ExtraBody: map[string]any{"ignore_eos": true}, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	index := map[int64]int{}
	rp := &sweep.Replay{MeanRate: trace.Summarize(tr).MeanRate}
	for i, r := range tr.Requests {
		index[r.ID] = i
		parent, ok := index[r.Parent]
		if !ok {
			parent = -1
		}
		rp.Requests = append(rp.Requests, sweep.ReplayRequest{At: r.At, Parent: parent, Session: int(r.ID/10) + 1, Turn: r.Turn})
	}
	rp.Prompt = func(i int, parent *sweep.ReplayTurn, salt uint64) client.Prompt {
		pb := trace.Prompts{BlockSize: tr.BlockSize, Salt: salt, TokensPerWord: 1.3, MessageTokens: tokcount.ChatMessageOverhead}
		if parent == nil {
			return pb.Prompt(&tr.Requests[i])
		}
		return pb.FollowUp(&tr.Requests[i], parent.Prompt, parent.Reply, parent.Record.OutputTokens())
	}
	var lvl sweep.Level
	cfg := sweep.Config{Load: sweep.ReplayLoad(rp, []float64{1}, 0), Prompt: func(int) client.Prompt { return client.Prompt{} }}
	if err := sweep.Run(context.Background(), cfg, cl, func(l sweep.Level) error { lvl = l; return nil }); err != nil {
		t.Fatal(err)
	}
	byIndex := map[int]client.Record{}
	for _, r := range lvl.Records {
		if !r.OK() {
			t.Fatalf("request %d: %s %s", r.Worker, r.ErrorClass, r.Error)
		}
		byIndex[r.Worker] = r
	}
	if len(byIndex) != len(tr.Requests) {
		t.Fatalf("%d records, want %d", len(byIndex), len(tr.Requests))
	}
	for i, rq := range rp.Requests {
		if rq.Parent < 0 {
			continue
		}
		rec, parent := byIndex[i], byIndex[rq.Parent]
		if rec.Start < parent.End || rec.Sched != parent.End {
			t.Errorf("turn %d of session %d: sent %v, scheduled %v, parent ended %v", rq.Turn, rq.Session, rec.Start, rec.Sched, parent.End)
		}
		if rec.Session != rq.Session || rec.Turn != rq.Turn {
			t.Errorf("record session %d turn %d, want %d %d", rec.Session, rec.Turn, rq.Session, rq.Turn)
		}
		// The history is the parent's prompt and its 40-token reply.
		if min := parent.PromptTokens + 40; rec.PromptTokens <= min {
			t.Errorf("turn %d of session %d: %d prompt tokens, want more than the parent's %d and its reply", rq.Turn, rq.Session, rec.PromptTokens, parent.PromptTokens)
		}
		if e := math.Abs(float64(rec.PromptTokens)/float64(tr.Requests[i].Input) - 1); e > 0.05 {
			t.Errorf("turn %d of session %d: %d prompt tokens for the trace's %d", rq.Turn, rq.Session, rec.PromptTokens, tr.Requests[i].Input)
		}
	}
}
