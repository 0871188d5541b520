package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/mode/toy" // the burst mode, registered by its init
)

// TestAModeAddedInItsOwnFile runs the burst mode (mode/toy, linked only
// by this test binary) against the simulator:
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
	if sum.EndReason != "completed" || sum.Config.Mode != toy.Name || len(sum.Levels) != 2 || sum.Levels[1].Concurrency != 3 || sum.Levels[1].RequestsOK != 3 {
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
