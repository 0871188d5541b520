package fit

import "testing"

// Corner sets each cost with an interval at its end (the prefill rate
// from its per-token cost's), and leaves one without an interval and
// the slot limit as they are.
func TestCorner(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	slots := 8
	m := Model{Params: []Param{
		{Name: "decode_base", Value: 3e6, Lo: f(2e6), Hi: f(4e6)},
		{Name: "decode_per_seq", Value: 2e5},
		{Name: "prefill_per_token", Value: 4e4, Lo: f(2e4), Hi: f(5e4)},
	}, Sim: SimParams{DecodeBaseNs: f(3e6), DecodePerSeqNs: f(2e5), PrefillTokensPerSec: f(25000), MaxNumSeqs: &slots}}
	for _, tc := range []struct {
		slow       bool
		base, rate float64
	}{{true, 4e6, 20000}, {false, 2e6, 50000}} {
		c := m.Corner(tc.slow)
		if *c.Sim.DecodeBaseNs != tc.base || *c.Sim.PrefillTokensPerSec != tc.rate || *c.Sim.DecodePerSeqNs != 2e5 || *c.Sim.MaxNumSeqs != 8 {
			t.Errorf("slow %v: base %g, rate %g, per seq %g, slots %d; want %g, %g, 2e5, 8",
				tc.slow, *c.Sim.DecodeBaseNs, *c.Sim.PrefillTokensPerSec, *c.Sim.DecodePerSeqNs, *c.Sim.MaxNumSeqs, tc.base, tc.rate)
		}
	}
	if *m.Sim.DecodeBaseNs != 3e6 || *m.Sim.PrefillTokensPerSec != 25000 {
		t.Errorf("Corner changed the model: base %g, rate %g", *m.Sim.DecodeBaseNs, *m.Sim.PrefillTokensPerSec)
	}
}
