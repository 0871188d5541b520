package fit

// Corner is the model with every fitted cost at the end of its 80%
// interval: the slow corner (each cost at its Hi) or the fast one (at its
// Lo). A parameter without an interval (not identified, or counted, as
// the slot limit) keeps its value. Taking every cost at once at its end
// is wider than the joint 80% interval, so a boundary both corners agree
// on is a safe one.
func (m Model) Corner(slow bool) Model {
	c := m
	c.Sim = m.Sim
	set := func(dst **float64, name string) {
		if *dst == nil {
			return
		}
		for _, p := range m.Params {
			if p.Name != name || p.Lo == nil || p.Hi == nil {
				continue
			}
			v := *p.Lo
			if slow {
				v = *p.Hi
			}
			*dst = &v
		}
	}
	set(&c.Sim.PrefillBaseNs, "prefill_base")
	set(&c.Sim.DecodeBaseNs, "decode_base")
	set(&c.Sim.DecodePerSeqNs, "decode_per_seq")
	set(&c.Sim.DecodePerCtxTokenNs, "decode_per_ctx_token")
	set(&c.Sim.RequestOverheadNs, "request_overhead")
	set(&c.Sim.RequestOverheadPerTokenNs, "request_overhead_per_token")
	set(&c.Sim.RequestOverheadPerSeqNs, "request_overhead_per_seq")
	set(&c.Sim.RequestOverheadPerTokenPerSeqNs, "request_overhead_per_token_per_seq")
	if c.Sim.PrefillTokensPerSec != nil {
		perToken := 1e9 / *c.Sim.PrefillTokensPerSec
		p := &perToken
		set(&p, "prefill_per_token")
		rate := float64(maxPrefillRate)
		if *p > 1e9/maxPrefillRate {
			rate = 1e9 / *p
		}
		c.Sim.PrefillTokensPerSec = &rate
	}
	return c
}
