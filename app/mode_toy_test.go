package app

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The burst mode exists only in this test binary: it proves that a mode
// added in its own file, registered on both sides (sweep.RegisterMode,
// registerMode), runs through the sweep command, its checks, estimate,
// output and saved files without a line changed in any consumer. A level
// "burst=N" sends N requests at once, one each, and ends when they have.
const burstMode = "burst"

// burstSpec is the burst mode's own settings (Config.ModeSpec).
type burstSpec struct{ sizes []int }

// burstSettings is what --burst chose, kept in the options by
// modeSettings (options has no field for a mode added later).
type burstSettings struct {
	raw   string
	sizes []int
}

func burstOf(o *options) *burstSettings { return modeSettings[burstSettings](o, burstMode) }

func init() {
	sweep.RegisterMode(&sweep.Mode{
		Name: burstMode, Rank: 30, Marks: true,
		Selects: func(cfg *sweep.Config) bool { return cfg.Mode == burstMode },
		Keys: func(cfg *sweep.Config) func() (sweep.LevelKey, bool) {
			sizes := cfg.ModeSpec.(burstSpec).sizes
			return func() (sweep.LevelKey, bool) {
				if len(sizes) == 0 {
					return sweep.LevelKey{}, false
				}
				n := sizes[0]
				sizes = sizes[1:]
				return sweep.LevelKey{Mode: burstMode, Concurrency: n}, true
			}
		},
		Claims:   func(*sweep.Level) bool { return false }, // its records name it (Marks)
		Measured: func(_ *sweep.Config, k sweep.LevelKey) int { return k.Concurrency },
		Arrivals: func(_ *sweep.Config, k sweep.LevelKey, _, _ int) (sweep.Arrivals, error) {
			return sweep.ArrivalsFunc(func(ctx context.Context, s sweep.Sender) {
				var wg sync.WaitGroup
				for w := range k.Concurrency {
					t, ok := s.Next()
					if !ok {
						break
					}
					wg.Go(func() { s.Send(ctx, t, w, 0) })
				}
				wg.Wait()
			}), nil
		},
		WarmConns:  func(k sweep.LevelKey) int { return k.Concurrency },
		AbortAfter: func(k sweep.LevelKey) int { return k.Concurrency },
		Words: sweep.Words{
			Name:          func(k sweep.LevelKey) string { return fmt.Sprintf("burst=%d", k.Concurrency) },
			At:            func(k sweep.LevelKey) string { return fmt.Sprintf("a burst of %d", k.Concurrency) },
			Unit:          "requests sent at once",
			Axis:          "burst size",
			Aggregate:     "over the burst",
			Caption:       "for each burst of requests sent at once",
			ClientLimited: "may have been",
		},
	})
	registerMode(&mode{
		name: burstMode, rank: 30, helpOrder: 4,
		flags: func(o *options) []cli.Flag {
			b := burstOf(o)
			return []cli.Flag{&cli.StringFlag{Name: "burst", Destination: &b.raw, Usage: "test only: comma-separated burst sizes, one level each"}}
		},
		check: func(o *options) error {
			b := burstOf(o)
			if b.raw == "" {
				return nil
			}
			if o.Flags.LevelsSet || o.Flags.RatesSet {
				return usagef("--burst is a mode of its own: drop --levels and --rates")
			}
			for _, f := range strings.Split(b.raw, ",") {
				n, err := strconv.Atoi(f)
				if err != nil || n < 1 || n > 64 {
					return usagef("invalid --burst %q: want sizes from 1 to 64", b.raw)
				}
				b.sizes = append(b.sizes, n)
			}
			o.Levels = nil // the closed loop's default levels do not apply
			return nil
		},
		chosen:   func(o *options) bool { return len(burstOf(o).sizes) > 0 },
		text:     func(o *options) string { return "in bursts of " + joinInts(burstOf(o).sizes) },
		levels:   func(o *options) int { return len(burstOf(o).sizes) },
		conns:    func(o *options) int { return 64 },
		estimate: func(o *options) estimate { return burstEstimate(burstOf(o).sizes) },
		start: func(_ context.Context, s modeStart, cfg *sweep.Config) modeRun {
			cfg.Mode, cfg.ModeSpec = burstMode, burstSpec{sizes: burstOf(s.o).sizes}
			return modeRun{
				note: func(l sweep.Level, _ report.LevelStats) string {
					return fmt.Sprintf("\n  burst of %d sent", l.Concurrency)
				},
				closing: func(stats []report.LevelStats) string { return fmt.Sprintf("Bursts: %d levels.", len(stats)) },
			}
		},
	})
}

// burstEstimate: a burst lasts one request.
type burstEstimate []int

func (b burstEstimate) upFront(p sweepPlan) string {
	return fmt.Sprintf("%d bursts of one request each", len(b))
}
func (b burstEstimate) runs(p sweepPlan) int { return len(b) * p.repeat }
func (b burstEstimate) timeLeft(p sweepPlan, done int, per time.Duration) time.Duration {
	return time.Duration(max(len(b)*p.repeat-done, 0)) * per
}
func (burstEstimate) perRequest(_ sweepPlan, _ sweep.LevelKey, elapsed time.Duration) (time.Duration, bool) {
	return elapsed, true
}
func (burstEstimate) alone(_ sweepPlan, _ sweep.LevelKey, at time.Duration) time.Duration { return at }

// TestAModeAddedInItsOwnFile runs the burst mode against the simulator:
// its words name the levels on stderr, stdout, levels.csv and
// summary.json (whose config names the mode), each level holds its burst,
// and report re-reads the run as burst levels; --shard refuses it.
func TestAModeAddedInItsOwnFile(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--burst", "2,3", "--max-tokens", "8", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{") in bursts of 2,3;", "toksweep: 2 bursts of one request each\n", "level burst=2 done", "burst of 3 sent",
		"left for 1 more level run (measured "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"burst=2", "burst=3", "Bursts: 2 levels.\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv: %d rows, want 2", len(rows))
	}
	for i, want := range []string{"2", "3"} {
		if got := rows[i]["requests_ok"]; got != want {
			t.Errorf("level %d: requests_ok %s, want %s", i, got, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		EndReason string `json:"end_reason"`
		Config    struct {
			Mode string `json:"mode"`
		} `json:"config"`
		Levels []struct {
			Concurrency int `json:"concurrency"`
			RequestsOK  int `json:"requests_ok"`
		} `json:"levels"`
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.EndReason != "completed" || sum.Config.Mode != burstMode || len(sum.Levels) != 2 || sum.Levels[1].Concurrency != 3 || sum.Levels[1].RequestsOK != 3 {
		t.Errorf("summary.json: %+v", sum)
	}
	code, stdout, stderr = runCLI(t, context.Background(), "report", out)
	if code != ExitOK || !strings.Contains(stdout, "burst=3") {
		t.Errorf("report: exit %d, stdout lacks burst=3\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, context.Background(), "sweep", "--sim", "--burst", "0"); code != ExitUsage || !strings.Contains(stderr, `invalid --burst "0"`) {
		t.Errorf("--burst 0: exit %d\n%s", code, stderr)
	}
	// It brings no shard split, so --shard refuses it by name.
	soon := time.Now().Add(10 * time.Minute).UTC().Format(time.RFC3339)
	code, _, stderr = runCLI(t, context.Background(), "sweep", "--sim", "--burst", "2", "--shard", "0/2", "--start-at", soon, "--level-duration", "2s")
	if code != ExitUsage || !strings.Contains(stderr, "--shard: the burst mode cannot be split across shards") {
		t.Errorf("--burst --shard: exit %d\n%s", code, stderr)
	}
}
