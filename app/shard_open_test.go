//go:build unix

package app

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/sweep"
)

// TestShardedOpenLoopSendsThePlan runs an open-loop sweep (two rates) as 2
// shard processes against one simulator and merges them: the merged run
// holds every arrival of the plan one process would draw, each once, sent
// by the shard j mod 2 at its planned instant, and each level keeps its
// offered rate.
func TestShardedOpenLoopSendsThePlan(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs 2 shard processes against the simulator")
	}
	const shards, seed, dur = 2, 7, 3 * time.Second
	rates := []float64{10, 20}
	spec := sweep.RateSpec{Arrival: sweep.Poisson, Seed: seed}
	url := steadySim(t, nil)
	bin := buildBinary(t)
	base := t.TempDir()
	start := time.Now().Add(4 * time.Second).UTC().Format(time.RFC3339Nano)
	var dirs []string
	var wg sync.WaitGroup
	for i := range shards {
		dir := filepath.Join(base, fmt.Sprintf("shard%d", i))
		dirs = append(dirs, dir)
		wg.Go(func() {
			out, err := toksweepCmd(bin, "sweep", "--url", url, "--rates", openloop.JoinRates(rates), "--seed", fmt.Sprint(seed),
				"--max-tokens", "16", "--metrics-url", "off", "--shard", fmt.Sprintf("%d/%d", i, shards),
				"--reading-speed", "1e6", "--percentiles", "90", // a reader that always waits: its figures show whose reader the merge used
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
	checkRerendered(t, merged) // the merge measured with the shards' reader and percentiles
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
		plan, err := spec.Instants(rate, int(4*rate*dur.Seconds()), 0)
		if err != nil {
			t.Fatal(err)
		}
		plan = slices.DeleteFunc(plan, func(at time.Duration) bool { return at >= dur })
		if margin := dur - plan[len(plan)-1]; margin < 100*time.Millisecond {
			t.Fatalf("rate %g: the plan's last arrival is %v before the level's end: choose a seed whose tail is not a matter of timing", rate, margin)
		}
		level := slices.DeleteFunc(slices.Clone(recs), func(r client.Record) bool { return r.Rate != rate })
		offset := checkPlanSent(t, rate, level, plan, shards)
		if offset == nil {
			continue
		}
		if got := num(t, rows[k], "rate"); got != rate {
			t.Errorf("merged level %d: rate %v, want the plan's %v", k, got, rate)
		}
		// offered_rps is (n − 1) / the span of the scheduled instants: the
		// plan's instants, each moved by its shard's level start.
		lo, hi := plan[0]+offset[0], plan[0]+offset[0]
		for j, at := range plan {
			lo, hi = min(lo, at+offset[j%shards]), max(hi, at+offset[j%shards])
		}
		want := float64(len(plan)-1) / (hi - lo).Seconds()
		if got := num(t, rows[k], "offered_rps"); !within(got, want, 1e-4) {
			t.Errorf("rate %g: merged offered_rps %.4f, the plan on the shards' timelines gives %.4f", rate, got, want)
		}
	}
}

// checkPlanSent: the level's records are the plan's arrivals 0…n−1, each
// once, every one OK, and arrival j was scheduled by shard j mod n at plan[j]
// on that shard's timeline: Sched − plan[j] is one constant per shard,
// exactly, and the shards' constants (their level starts on the merged
// timeline) differ by under a generous second. It returns the constants,
// nil when the records are not the plan's.
func checkPlanSent(t *testing.T, rate float64, level []client.Record, plan []time.Duration, shards int) []time.Duration {
	t.Helper()
	slices.SortFunc(level, func(a, b client.Record) int { return a.Worker - b.Worker })
	if len(level) != len(plan) {
		t.Errorf("rate %g: %d requests sent, the plan has %d arrivals", rate, len(level), len(plan))
		return nil
	}
	offset := make([]time.Duration, shards)
	for j, r := range level {
		if r.Worker != j || r.Seq != j || !r.OK() {
			t.Errorf("rate %g: request %d is arrival %d (ticket %d, %s): want arrival %d, OK", rate, j, r.Worker, r.Seq, r.ErrorClass, j)
			return nil
		}
		i := j % shards
		if j < shards {
			offset[i] = r.Sched - plan[j]
		} else if d := r.Sched - plan[j]; d != offset[i] {
			t.Errorf("rate %g: arrival %d (shard %d) scheduled %v off the plan, the shard's first %v", rate, j, i, d, offset[i])
		}
	}
	if skew := slices.Max(offset) - slices.Min(offset); skew > time.Second {
		t.Errorf("rate %g: the shards started the level %v apart", rate, skew)
	}
	return offset
}
