//go:build unix

package app

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// TestShardedOpenLoopSendsThePlan runs an open-loop sweep (two rates) as 2
// shard processes against one simulator and merges them: the merged run
// holds every arrival of the plan one process would draw, each once, sent
// by the shard j mod 2 at its planned instant, and each level keeps its
// offered rate.
func TestShardedOpenLoopSendsThePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2 shard processes against the simulator")
	}
	const shards, seed, dur = 2, 7, 3 * time.Second
	rates := []float64{10, 20}
	spec := sweep.RateSpec{Arrival: sweep.Poisson, Seed: seed}
	url := steadySim(t, nil)
	bin := buildBinary(t, t.TempDir())
	base := t.TempDir()
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	var dirs []string
	var wg sync.WaitGroup
	for i := range shards {
		dir := filepath.Join(base, fmt.Sprintf("shard%d", i))
		dirs = append(dirs, dir)
		wg.Go(func() {
			out, err := exec.Command(bin, "sweep", "--url", url, "--rates", joinRates(rates), "--seed", fmt.Sprint(seed),
				"--max-tokens", "16", "--metrics-url", "off", "--shard", fmt.Sprintf("%d/%d", i, shards),
				"--start-at", start, "--level-duration", dur.String(), "--grace", "1s", "--out", dir).CombinedOutput()
			if err != nil {
				t.Errorf("shard %d: %v: %s", i, err, out)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	merged := filepath.Join(base, "merged")
	if code, _, stderr := runCLI(t, context.Background(), append([]string{"merge", "--allow-skew", merged}, dirs...)...); code != ExitOK {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	sent := 0
	for _, d := range dirs {
		sent += len(readRecords(t, d))
	}
	recs := readRecords(t, merged)
	if len(recs) != sent {
		t.Errorf("the merged run holds %d requests, the shards sent %d", len(recs), sent)
	}
	rows := readLevels(t, merged)
	if len(rows) != len(rates) {
		t.Fatalf("merged levels.csv has %d rows, want %d", len(rows), len(rates))
	}
	for k, rate := range rates {
		plan, err := spec.ArrivalPlan(rate, int(4*rate*dur.Seconds()), 0)
		if err != nil {
			t.Fatal(err)
		}
		plan = slices.DeleteFunc(plan, func(at time.Duration) bool { return at >= dur })
		if margin := dur - plan[len(plan)-1]; margin < 100*time.Millisecond {
			t.Fatalf("rate %g: the plan's last arrival is %v before the level's end: choose a seed whose tail is not a matter of timing", rate, margin)
		}
		level := slices.DeleteFunc(slices.Clone(recs), func(r client.Record) bool { return r.Rate != rate })
		checkPlanSent(t, rate, level, plan, shards)
		if got := num(t, rows[k], "rate"); got != rate {
			t.Errorf("merged level %d: rate %v, want the plan's %v", k, got, rate)
		}
		// Sched spreads over the plan's span, shifted per shard by at most
		// the shards' start skew.
		realised := float64(len(plan)-1) / (plan[len(plan)-1] - plan[0]).Seconds()
		if got := num(t, rows[k], "offered_rps"); !within(got, realised, 0.1) {
			t.Errorf("rate %g: merged offered_rps %.2f, the plan's realised rate %.2f", rate, got, realised)
		}
	}
}

// checkPlanSent: the level's records are the plan's arrivals 0…n−1, each
// once, every one OK, and arrival j was scheduled by shard j mod n at plan[j]
// on that shard's timeline: Sched − plan[j] is one constant per shard,
// exactly, and the shards' constants (their level starts) differ by under
// a generous 200 ms.
func checkPlanSent(t *testing.T, rate float64, level []client.Record, plan []time.Duration, shards int) {
	t.Helper()
	slices.SortFunc(level, func(a, b client.Record) int { return a.Worker - b.Worker })
	if len(level) != len(plan) {
		t.Errorf("rate %g: %d requests sent, the plan has %d arrivals", rate, len(level), len(plan))
		return
	}
	offset := make([]time.Duration, shards)
	for j, r := range level {
		if r.Worker != j || r.Seq != j || !r.OK() {
			t.Errorf("rate %g: request %d is arrival %d (ticket %d, %s): want arrival %d, OK", rate, j, r.Worker, r.Seq, r.ErrorClass, j)
			return
		}
		i := j % shards
		if j < shards {
			offset[i] = r.Sched - plan[j]
		} else if d := r.Sched - plan[j]; d != offset[i] {
			t.Errorf("rate %g: arrival %d (shard %d) scheduled %v off the plan, the shard's first %v", rate, j, i, d, offset[i])
		}
	}
	if skew := slices.Max(offset) - slices.Min(offset); skew > 200*time.Millisecond {
		t.Errorf("rate %g: the shards started the level %v apart", rate, skew)
	}
}
