package app

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/search"
)

// --rates auto against the simulator (capacity about 34 req/s with its
// default model): it ramps from 1 req/s, finds the saturation and returns a
// stable, passing rate, within 8 levels. Tolerances are wide: the box is
// shared and the levels short.
func TestRatesAutoAgainstSim(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20-60 s run")
	}
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--rates", "auto", "--arrival", "constant",
		"--slo-ttft-p95", "1s", "--duration", "3s", "--out", out, "--metrics-url", "off")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	rows := readLevels(t, out)
	if len(rows) < 3 || len(rows) > search.RateAutoLevels {
		t.Fatalf("%d levels", len(rows))
	}
	var tried []float64
	for _, r := range rows {
		tried = append(tried, num(t, r, "rate"))
	}
	line := strings.TrimSpace(stdout[strings.LastIndex(strings.TrimRight(stdout, "\n"), "\n")+1:])
	var offered, answer float64
	if _, err := fmt.Sscanf(line, "--rates auto: the highest stable rate meeting the SLO is %g req/s offered (nominal %g req/s)", &offered, &answer); err != nil {
		t.Fatalf("closing line %q: %v", line, err)
	}
	for _, r := range rows {
		if num(t, r, "rate") == answer {
			if r["unstable"] != "false" || r["slo_pass"] != "true" || math.Abs(num(t, r, "offered_rps")-offered) > 0.0005*offered+0.001 {
				t.Errorf("the answer %s: unstable %s slo_pass %s", r["rate"], r["unstable"], r["slo_pass"])
			}
		}
	}
	if answer < 4 || answer > 60 {
		t.Errorf("tried %v; closing line %q: answer %g, want a rate between 4 and 60 req/s", tried, line, answer)
	}
	t.Logf("tried %v: %s", tried, line)
}
