package promscrape

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

func parseFile(t *testing.T, name string) *Exposition {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestParseAwkwardButValid(t *testing.T) {
	e := parseFile(t, "vllm-v1.txt")
	if e.Malformed != 0 {
		t.Fatalf("%d malformed lines, first %s", e.Malformed, e.FirstBad)
	}
	for name, want := range map[string]Series{
		"some_unknown_metric":       {1, 1},
		"weird_spacing":             {7, 1},
		"om_counter_total":          {3, 1},
		"nan_gauge":                 {},
		"inf_gauge":                 {},
		"neg_inf_gauge":             {},
		"vllm:num_requests_running": {7, 2},
	} {
		if got := e.Series[name]; got != want {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
}

func TestReadVLLMv1(t *testing.T) {
	s := Read(parseFile(t, "vllm-v1.txt"))
	checks := []struct {
		what string
		got  value
		want float64
	}{
		{"running (summed over engines)", s.Running, 7},
		{"waiting", s.Waiting, 1},
		{"kv usage (averaged over engines)", s.KVUsage, 0.5},
		{"prefix queries (_total)", s.PrefixQueries, 10000},
		{"prefix hits", s.PrefixHits, 2500},
	}
	for _, c := range checks {
		if !c.got.OK || c.got.V != c.want {
			t.Errorf("%s = %+v, want %v", c.what, c.got, c.want)
		}
	}
	if s.TTFT != (hist{Sum: 10, Count: 40, OK: true}) || s.Queue != (hist{1.2, 40, true}) || s.Prefill != (hist{6.4, 40, true}) {
		t.Errorf("histograms %+v %+v %+v", s.TTFT, s.Queue, s.Prefill)
	}
	if s.HitRateGauge.OK {
		t.Error("found a v0 hit-rate gauge that is not there")
	}
}

// TestReadLLMD reads a scrape of llm-d-inference-sim v0.10.2 after five
// requests at --max-num-seqs 2: counters without _total, and a queue
// histogram that observes only the requests that waited.
func TestReadLLMD(t *testing.T) {
	s := Read(parseFile(t, "llmd-v0.10.2.txt"))
	if !s.Running.OK || !s.Waiting.OK || !s.KVUsage.OK {
		t.Errorf("gauges %+v %+v %+v", s.Running, s.Waiting, s.KVUsage)
	}
	if s.PrefixQueries != (value{130, true}) || s.PrefixHits != (value{64, true}) {
		t.Errorf("prefix counters %+v %+v", s.PrefixQueries, s.PrefixHits)
	}
	if s.TTFT.Count != 5 || s.Queue.Count != 3 || s.Prefill.Count != 5 {
		t.Errorf("histogram counts %v %v %v", s.TTFT.Count, s.Queue.Count, s.Prefill.Count)
	}
}

func TestParseSkipsMalformedLines(t *testing.T) {
	in := "good 1\nbad{unterminated=\"x 2\nalso_bad\n{no_name=\"x\"} 3\nvalue_bad 1.2.3\ngood 2\n"
	e, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if e.Series["good"] != (Series{3, 2}) || e.Malformed != 4 || !strings.Contains(e.FirstBad, "unterminated") {
		t.Fatalf("series %+v, malformed %d (%s)", e.Series, e.Malformed, e.FirstBad)
	}
}

func TestParseRejectsWhatIsNotAnExposition(t *testing.T) {
	for _, in := range []string{"<html><body>Not Found</body></html>", `{"detail":"Not Found"}`} {
		if _, err := Parse(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), "not a Prometheus text exposition") {
			t.Errorf("%q: err = %v", in, err)
		}
	}
	e, err := Parse(strings.NewReader("# only comments\n\n"))
	if err != nil || len(e.Series) != 0 {
		t.Errorf("an empty exposition: %v, %+v", err, e)
	}
}

func TestLevelFigures(t *testing.T) {
	open := &Snapshot{TTFT: hist{Sum: 1, Count: 10, OK: true}, PrefixQueries: value{100, true}, PrefixHits: value{10, true}}
	closing := &Snapshot{
		TTFT:          hist{Sum: 3.5, Count: 20, OK: true},
		Queue:         hist{Sum: 0.5, Count: 4, OK: true}, // appeared during the level
		PrefixQueries: value{300, true}, PrefixHits: value{60, true},
	}
	var m LevelMetrics
	m.between(open, closing)
	if d, ok := m.TTFT.Mean(); !ok || d != 250*time.Millisecond {
		t.Errorf("TTFT mean %v %v, want 250ms", d, ok)
	}
	if d, ok := m.Queue.Mean(); !ok || d != 125*time.Millisecond {
		t.Errorf("queue mean %v %v, want 125ms (a series born mid-level starts at 0)", d, ok)
	}
	if _, ok := m.Prefill.Mean(); ok {
		t.Error("prefill mean without a prefill histogram")
	}
	if r := m.PrefixHitRate(); r != 0.25 {
		t.Errorf("hit rate %v, want 50/200", r)
	}
	m.sample(&Snapshot{Running: value{4, true}, KVUsage: value{0.5, true}})
	m.sample(&Snapshot{Running: value{2, true}})
	if m.Running.Mean() != 3 || m.KVUsage.Mean() != 0.5 || !math.IsNaN(m.Waiting.Mean()) || m.Scrapes != 2 {
		t.Errorf("gauges %+v", m)
	}
	// A counter that went down (a restart) has no increase.
	m.between(&Snapshot{PrefixQueries: value{500, true}, PrefixHits: value{50, true}}, closing)
	if !math.IsNaN(m.PrefixHitRate()) {
		t.Errorf("hit rate across a restart = %v, want NaN", m.PrefixHitRate())
	}
}

// TestParseErrorQuotesNoContent: a page that is not an exposition may echo
// request headers; the error must not repeat them.
func TestParseErrorQuotesNoContent(t *testing.T) {
	page := "<html>you sent:\nAuthorization: Bearer sk-PLANTED-SECRET\ntoken sk-PLANTED-SECRET\n</html>\n"
	_, err := Parse(strings.NewReader(page))
	if err == nil {
		t.Fatal("an HTML page parsed as an exposition")
	}
	if strings.Contains(err.Error(), "PLANTED") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("error %q: want the line number and none of the page's text", err)
	}
}

// TestPreemptions: vllm:num_preemptions_total is read from an exposition
// (with or without the _total suffix) and its increase over a level kept.
func TestPreemptions(t *testing.T) {
	read := func(page string) *Snapshot {
		e, err := Parse(strings.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		return Read(e)
	}
	open := read("vllm:num_preemptions_total{model_name=\"m\"} 3\n")
	closing := read("vllm:num_preemptions_total{model_name=\"m\",engine=\"0\"} 10\nvllm:num_preemptions_total{model_name=\"m\",engine=\"1\"} 4\n")
	var m LevelMetrics
	m.between(open, closing)
	if m.Preemptions != (Increase{Delta: 11, OK: true}) {
		t.Errorf("preemptions %+v, want an increase of 14 − 3 = 11", m.Preemptions)
	}
	if s := read("vllm:num_preemptions 2\n"); s.Preemptions != (value{2, true}) {
		t.Errorf("without _total: %+v", s.Preemptions)
	}
	m.between(open, read("vllm:num_requests_running 1\n"))
	if m.Preemptions.OK {
		t.Errorf("a server without the counter: %+v, want no figure", m.Preemptions)
	}
}

// TestParseAllocatesPerNameNotPerLine: a scrape is taken every second of
// a level, so parsing it must not allocate per sample line (histogram
// buckets, label sets); only per metric name.
func TestParseAllocatesPerNameNotPerLine(t *testing.T) {
	page := func(linesPerName int) string {
		var b strings.Builder
		for n := range 10 {
			fmt.Fprintf(&b, "# TYPE m%d_bucket counter\n", n)
			for i := range linesPerName {
				fmt.Fprintf(&b, "m%d_bucket{le=\"%d\",model_name=\"x\"} %d.5 1700000000000\n", n, i, i)
			}
		}
		return b.String()
	}
	allocs := func(in string) float64 {
		return testing.AllocsPerRun(20, func() {
			if e, err := Parse(strings.NewReader(in)); err != nil || len(e.Series) != 10 {
				t.Fatalf("%v, %d names", err, len(e.Series))
			}
		})
	}
	few, many := allocs(page(2)), allocs(page(500))
	if many > few {
		t.Errorf("%.0f allocations for 10 names × 500 lines, %.0f for 10 × 2: want no more", many, few)
	}
}
