package live

import (
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// TestClassLabel: with classes, every per-request family carries the
// request's class as the label "class", one series per class.
func TestClassLabel(t *testing.T) {
	m := New(Labels{RunID: "run-1", Shard: "0/1", Model: "m", Classes: true}, nil)
	srv, err := serve(t, m)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close(false)
	m.LevelStarted(sweep.Level{Concurrency: 2}, 0)
	recs := handMade()
	recs[0].Class, recs[1].Class, recs[2].Class = "interactive", "batch", "batch"
	for i := range recs {
		m.RequestDone(&recs[i])
	}
	_, fams := scrape(t, srv.Addr().String())
	lvl := func(class string, more ...string) map[string]string {
		l := map[string]string{"run_id": "run-1", "shard": "0/1", "model": "m", "mode": "closed", "level": "C=2", "class": class}
		for i := 0; i+1 < len(more); i += 2 {
			l[more[i]] = more[i+1]
		}
		return l
	}
	for _, tt := range []struct {
		class string
		out   float64
		ok    float64
	}{{"interactive", 4, 1}, {"batch", 4, 1}} {
		if v := one(t, fams, "toksweep_output_tokens_total", lvl(tt.class)).GetCounter().GetValue(); v != tt.out {
			t.Errorf("class %s: output tokens %v, want %v", tt.class, v, tt.out)
		}
		if v := one(t, fams, "toksweep_requests_total", lvl(tt.class, "outcome", "ok")).GetCounter().GetValue(); v != tt.ok {
			t.Errorf("class %s: ok requests %v, want %v", tt.class, v, tt.ok)
		}
		if n := one(t, fams, "toksweep_ttft_seconds", lvl(tt.class)).GetHistogram().GetSampleCount(); n != 1 {
			t.Errorf("class %s: %d TTFT samples, want 1", tt.class, n)
		}
	}
	if v := one(t, fams, "toksweep_requests_total", lvl("batch", "outcome", "http_5xx")).GetCounter().GetValue(); v != 1 {
		t.Errorf("batch 5xx %v, want 1", v)
	}
}
