package live

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// TestDashboardQueriesExportedMetrics: deploy/grafana's dashboard decodes,
// has panels with queries, and every metric a query names is one the
// endpoint exports (a histogram by its _bucket, _sum or _count series).
func TestDashboardQueriesExportedMetrics(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../deploy/grafana/toksweep-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	m := New(Labels{RunID: "r", Shard: "0/1", Model: "m"}, func() float64 { return 0 })
	m.LevelStarted(sweep.Level{Concurrency: 2}, 0)
	for _, r := range handMade() {
		m.RequestDone(&r)
	}
	fams, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range fams {
		exported[f.GetName()] = true
	}
	metric := regexp.MustCompile(`\btoksweep_[a-z0-9_]+`)
	queries := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			names := metric.FindAllString(tg.Expr, -1)
			if len(names) == 0 {
				t.Errorf("panel %q: query %q names no toksweep metric", p.Title, tg.Expr)
			}
			for _, n := range names {
				base := n
				for _, suf := range []string{"_bucket", "_sum", "_count"} {
					if b, ok := strings.CutSuffix(n, suf); ok && exported[b] {
						base = b
					}
				}
				if !exported[base] {
					t.Errorf("panel %q: %s is not exported by the endpoint", p.Title, n)
				}
			}
			queries++
		}
	}
	if queries < 10 {
		t.Errorf("%d queries in the dashboard, want its ten panels' at least", queries)
	}
}
