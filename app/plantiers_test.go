package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/plan"
)

// plan on a run with SLO tiers prints a row per tier after its plan and
// writes them into plan.json, each at the level the run's tier table
// answered.
func TestPlanPerTier(t *testing.T) {
	t.Parallel()
	dir := copyRun(t, "../testdata/runs/tiers")
	code, stdout, stderr := runCLI(t, context.Background(), "plan", "--peak-rps", "50", "--gpus-per-replica", "8", "--gpu-hour-usd", "2.5", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	at := strings.Index(stdout, "Per SLO tier")
	if at < 0 {
		t.Fatalf("no tier table:\n%s", stdout)
	}
	table := stdout[at:]
	for _, want := range []string{"$/session", "instant  none", "fast     C=1", "steady   C=4", "bulk     C=16"} {
		if !strings.Contains(table, want) {
			t.Errorf("the tier table lacks %q:\n%s", want, table)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, plan.File))
	if err != nil {
		t.Fatal(err)
	}
	var j plan.JSON
	if err := json.Unmarshal(raw, &j); err != nil {
		t.Fatal(err)
	}
	var levels []string
	for _, tj := range j.Tiers {
		levels = append(levels, tj.Level)
	}
	if got := strings.Join(levels, ","); got != ",C=1,C=4,C=16" {
		t.Errorf("plan.json's tiers at %q, want ,C=1,C=4,C=16", got)
	}
}
