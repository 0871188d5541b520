package sweep_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/mode/sessions"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/simtest"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload"
)

// agentLine is an agentic session: turn 2 waits 120 ms for its tool, and
// its reply starts two sub-sessions at once, A (two turns, waiting 60 and
// 40 ms) and B (one turn, 90 ms); turn 3 waits for both, then 80 ms.
const agentLine = `{"turns": ["Fix the failing test in pkg/a.",
 {"user": "Here is the test output.", "wait_ms": 120, "parallel": true, "subs": [
   {"turns": [{"user": "Search the code for Foo.", "wait_ms": 60}, {"user": "Now open bar.go.", "wait_ms": 40}]},
   {"turns": [{"user": "Read the CI log.", "wait_ms": 90}]}]},
 {"user": "Apply the fix.", "wait_ms": 80}]}`

// agentTurn names a record of agentLine's session: its sub-session
// (Record.Branch) and turn.
type agentTurn struct{ branch, turn int }

// agentAfter is what each turn of agentLine waits for, and its tool wait.
var agentAfter = map[agentTurn]struct {
	after []agentTurn
	wait  time.Duration
}{
	{0, 1}: {nil, 0},
	{0, 2}: {[]agentTurn{{0, 1}}, 120 * time.Millisecond},
	{1, 1}: {[]agentTurn{{0, 2}}, 60 * time.Millisecond},
	{1, 2}: {[]agentTurn{{1, 1}}, 40 * time.Millisecond},
	{2, 1}: {[]agentTurn{{0, 2}}, 90 * time.Millisecond},
	{0, 3}: {[]agentTurn{{0, 2}, {1, 2}, {2, 1}}, 80 * time.Millisecond},
}

// runAgent sweeps one session of agentLine (C=1, six turns) against a
// simulator of 10 ms decode steps that stamps arrivals, 24 tokens a turn,
// and returns its records by turn, the arrival stamps and the client's
// epoch.
func runAgent(t *testing.T) (map[agentTurn]client.Record, []time.Time, time.Time) {
	t.Helper()
	srv := simtest.NewServer(sim.Config{Model: "m", MaxModelLen: 8192, MaxNumSeqs: 8, PrefillTokensPerSec: 1e6,
		DecodeBase: 10 * time.Millisecond, RecordArrivals: true})
	t.Cleanup(srv.Close)
	name := filepath.Join(t.TempDir(), "agent.jsonl")
	if err := os.WriteFile(name, []byte(strings.ReplaceAll(agentLine, "\n", "")), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := workload.Load(workload.Options{Dataset: name, MultiTurn: true})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := client.New(client.Config{BaseURL: srv.URL + "/v1", Model: "m", MaxTokens: 24, ExtraBody: map[string]any{"ignore_eos": true}, RequestTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cfg := sweep.Config{Requests: len(agentAfter), Load: sessions.Load{
		Load:     closed.Load{Name: sessions.Name, Levels: []int{1}},
		Sessions: &sweep.Sessions{Open: sessions.Opener(set.Sessions), Think: sweep.Think{Mean: 3 * time.Second}},
	}}
	var lvl sweep.Level
	if err := sweep.Run(context.Background(), cfg, cl, func(l sweep.Level) error { lvl = l; return nil }); err != nil {
		t.Fatal(err)
	}
	recs := map[agentTurn]client.Record{}
	for _, r := range lvl.Records {
		if !r.OK() || r.Session != 1 {
			t.Fatalf("record %+v: want a successful turn of session 1", r)
		}
		recs[agentTurn{r.Branch, r.Turn}] = r
	}
	if len(recs) != len(agentAfter) {
		t.Fatalf("%d turns %v, want %d", len(recs), slices.Collect(mapKeys(recs)), len(agentAfter))
	}
	return recs, srv.Arrivals(), cl.Epoch()
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// An agentic session with tool waits and a parallel fan-out of two
// sub-sessions, replayed against the simulator: no turn starts, nor
// reaches the server (its arrival stamps, on the client's clock: one
// process, one monotonic clock, so no offset to allow for), before the
// replies it waits for ended plus its own wait. Each turn has a due
// instant (the latest End of what it waits for, plus its wait); if every
// request arrived after its own due instant, the k-th earliest arrival is
// after the k-th earliest due instant, so the sorted lists are compared
// without telling which stamp is whose. The two sub-sessions overlap
// (each turn holds the server 24 decode steps of 10 ms, B starts 30 ms
// after A); the 3 s think time is never drawn, since every later
// turn has its dataset wait; every prompt of a sub-session or of the turn
// after them is longer than the one it branched from.
func TestAgentSessionWaitsForParentsAgainstSim(t *testing.T) {
	recs, arrivals, epoch := runAgent(t)
	var dues []time.Duration
	for k, a := range agentAfter {
		r := recs[k]
		due := time.Duration(0)
		for _, p := range a.after {
			due = max(due, recs[p].End)
		}
		due += a.wait
		dues = append(dues, due)
		if r.ToolWait != a.wait || r.Think != 0 {
			t.Errorf("%v: tool wait %v, think %v; want %v and 0", k, r.ToolWait, r.Think, a.wait)
		}
		if r.Start < due {
			t.Errorf("%v started at %v, before its parents' end plus its wait, %v", k, r.Start, due)
		}
		if len(a.after) > 0 && r.PromptTokens <= recs[a.after[0]].PromptTokens { // after[0]: the turn whose history it extends
			t.Errorf("%v: %d prompt tokens, not more than %v's %d", k, r.PromptTokens, a.after[0], recs[a.after[0]].PromptTokens)
		}
		if (r.History == 0) != (k == agentTurn{0, 1}) {
			t.Errorf("%v: history share %v", k, r.History)
		}
	}
	if len(arrivals) != len(dues) {
		t.Fatalf("%d arrivals, want %d", len(arrivals), len(dues))
	}
	slices.Sort(dues)
	for i, at := range arrivals {
		if got := at.Sub(epoch); got <= dues[i] {
			t.Errorf("arrival %d at %v, not after the %d-th due instant %v", i+1, got, i+1, dues[i])
		}
	}
	a, b := recs[agentTurn{1, 1}], recs[agentTurn{2, 1}]
	if !(b.Start < a.End && a.Start < b.End) {
		t.Errorf("parallel sub-sessions did not overlap: A %v–%v, B %v–%v", a.Start, a.End, b.Start, b.End)
	}
	t.Logf("session %v; turn 3 sent %v after turn 2's reply", recs[agentTurn{0, 3}].End-recs[agentTurn{0, 1}].Start, recs[agentTurn{0, 3}].Start-recs[agentTurn{0, 2}].End)
}

// A sub-session's turns open with its parent's history through the reply
// that started it; the parent's next turn opens with the sub-sessions'
// final replies, in the dataset's order; sequential sub-sessions run one
// after another; a failed turn of a sub-session ends the whole session.
func TestAgentSubSessionsBranchAndRejoin(t *testing.T) {
	ts, lvl := sessionRun(t, client.Chat, 1, 6, 0,
		`{"turns": ["root one", {"user": "root two", "subs": [{"turns": ["sub a1", "sub a2"]}, {"turns": ["sub b1"]}]}, "root three"]}`)
	by := map[string]turnSeen{}
	for _, s := range ts.seen {
		by[s.msgs[len(s.msgs)-1].Content] = s
	}
	two, a1, a2, b1 := by["root two"], by["sub a1"], by["sub a2"], by["sub b1"]
	parent := append(slices.Clone(two.msgs), client.Message{Role: "assistant", Content: two.reply})
	for _, s := range []turnSeen{a1, a2, b1} {
		if len(s.msgs) < len(parent) || !slices.Equal(s.msgs[:len(parent)], parent) {
			t.Errorf("sub-session turn %q: history %+v does not open with the parent's %+v", s.msgs[len(s.msgs)-1].Content, s.msgs, parent)
		}
	}
	if b1.got.Before(a2.ended) {
		t.Error("sequential sub-session b started before a ended")
	}
	want := a2.reply + "\n\n" + b1.reply + "\n\nroot three"
	var three *turnSeen
	for _, s := range ts.seen {
		if last := s.msgs[len(s.msgs)-1].Content; strings.HasSuffix(last, "root three") {
			three = &s
		}
	}
	if three == nil || three.msgs[len(three.msgs)-1].Content != want || !slices.Equal(three.msgs[:len(parent)], parent) {
		t.Fatalf("turn 3 %+v: want the parent's history, then %q", three, want)
	}
	for _, r := range lvl.Records {
		if wantBranch := map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 2, 5: 0}[r.Seq]; r.Branch != wantBranch {
			t.Errorf("ticket %d: branch %d, want %d", r.Seq, r.Branch, wantBranch)
		}
	}

	ts, _ = sessionRun(t, client.Chat, 1, 4, 0,
		`{"turns": ["omega one", {"user": "omega two", "parallel": true, "subs": [{"turns": ["FAIL sub"]}]}, "omega three"]}`)
	for _, s := range ts.seen {
		if strings.HasSuffix(s.msgs[len(s.msgs)-1].Content, "omega three") && len(s.msgs) > 1 {
			t.Errorf("the turn after a failed sub-session was sent: %+v", s.msgs)
		}
	}
}
