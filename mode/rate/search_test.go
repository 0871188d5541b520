package rate

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/report"
)

// scripted is a server of maximum throughput x req/s that meets the SLO
// up to slo req/s: a level completes min(rate, x) per second, and is
// unstable when that falls short of its arrivals by more than
// ShortfallMax; each plan offers its nominal rate × offer.
func scripted(x, slo, offer float64) func(float64) mode.RateVerdict {
	return func(r float64) mode.RateVerdict {
		achieved := min(r, x)
		unstable := achieved < (1-report.ShortfallMax)*r
		return mode.RateVerdict{Pass: !unstable && r <= slo, Unstable: unstable, Achieved: achieved, Offered: r * offer}
	}
}

func run(p Search) {
	for n := 0; n < 100; n++ {
		if _, ok := p.Next(); !ok {
			return
		}
	}
}

// The answer in the rate mode's words, on the sequences openloop's test
// works by hand: throughput-bound (the ceiling said), SLO-bound, nothing
// passing, never failing.
func TestSearchSentence(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, want string
		x, slo     float64
	}{
		{"throughput", "--rates auto: the highest stable rate meeting the SLO is 32.7 req/s offered (nominal 32.7); 64 req/s offered (nominal 64) failed, and no rate above 35.4 req/s can be stable (maximum throughput measured 33.6 req/s) (tried 1,4,16,64,30.2,32.7 req/s).", 33.6, math.Inf(1)},
		{"slo", "--rates auto: the highest stable rate meeting the SLO is 9.51 req/s offered (nominal 9.51); 10.4 req/s offered (nominal 10.4) failed (tried 1,4,16,8,11.3,9.51,10.4 req/s).", 1000, 10},
		{"nothing passes", "--rates auto: no rate tried was stable and met the SLO (tried 1 req/s).", 0.5, 10},
		{"never fails", "--rates auto: the highest stable rate meeting the SLO is at least 10000 req/s offered (nominal 10000), the last tried within 8 levels (tried 1,4,16,64,256,1024,4096,10000 req/s).", math.Inf(1), math.Inf(1)},
	} {
		p := NewSearch(scripted(tt.x, tt.slo, 1))
		run(p)
		if got := p.Sentence(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// The answer quotes the rate the level's plan offered, the nominal rate in
// brackets: a Poisson plan at 10 req/s that offered 9.57 is "9.57 req/s
// offered (nominal 10)".
func TestSearchAnswerQuotesOffered(t *testing.T) {
	t.Parallel()
	p := NewSearch(scripted(1000, 10, 0.957))
	run(p)
	lo := p.Result().Pass
	if s := p.Sentence(); !strings.Contains(s, "offered (nominal") || lo <= 0 || !strings.Contains(s, "(nominal "+strconv.FormatFloat(lo, 'g', -1, 64)+")") {
		t.Errorf("sentence %q (answer %g)", s, lo)
	}
}

func TestText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		offered, nominal float64
		want             string
	}{
		{23.93456, 25.1, "23.93 req/s offered (nominal 25.1)"},
		{0, 25.1, "25.1 req/s (nominal)"},
		{math.NaN(), 4, "4 req/s (nominal)"},
		{math.Inf(1), 4, "4 req/s (nominal)"},
	} {
		if got := Text(tt.offered, tt.nominal); got != tt.want {
			t.Errorf("Text(%v, %v) = %q, want %q", tt.offered, tt.nominal, got, tt.want)
		}
	}
}
