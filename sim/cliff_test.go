package sim

import (
	"testing"
	"time"
)

// A request alone on a server with a cliff at 120 tokens of KV: its steps
// hold 100 prompt tokens plus those generated, so the steps up to 120
// tokens of context last their modelled time and every later one 3× it,
// on the engine's own step stamps. The same server with a cliff it never
// reaches steps exactly as the one with none.
func TestStepCliffMultipliesStepsPastItsKV(t *testing.T) {
	const prompt, target, kv, factor = 100, 40, 120, 3.0
	base := testConfig()
	base.DecodePerSeq, base.DecodePerCtxToken = 100*time.Microsecond, 2*time.Microsecond
	run := func(c StepCliff) []stepTrace {
		cfg := base
		cfg.StepCliff = c
		e, log, _ := testEngine(t, cfg)
		sq := submitAll(t, e, job{promptTokens: prompt, target: target, finish: "length"})
		wait(t, sq...)
		return log.of(sq[0])
	}
	modelled := func(ctx int, prefill bool) float64 {
		ns := float64(base.DecodeBase + base.DecodePerSeq + time.Duration(ctx)*base.DecodePerCtxToken)
		if prefill {
			ns += prompt * 1e9 / base.PrefillTokensPerSec
		}
		return ns
	}
	steps := run(StepCliff{KVTokens: kv, Factor: factor})
	if len(steps) != target {
		t.Fatalf("%d steps, want %d", len(steps), target)
	}
	past := 0
	for k, st := range steps {
		ctx := prompt + k // the step's KV: the prompt and the tokens before it
		want := modelled(ctx, k == 0)
		if ctx > kv {
			want *= factor
			past++
		}
		if got := st.end.Sub(st.start); got != time.Duration(want) {
			t.Errorf("step %d (%d tokens of KV): %v, want %v", k+1, ctx, got, time.Duration(want))
		}
	}
	if past != target-(kv-prompt+1) {
		t.Errorf("%d steps past the cliff, want %d", past, target-(kv-prompt+1))
	}
	plain, far := run(StepCliff{}), run(StepCliff{KVTokens: 1 << 20, Factor: factor})
	for k := range plain {
		if a, b := plain[k].end.Sub(plain[k].start), far[k].end.Sub(far[k].start); a != b || a != time.Duration(modelled(prompt+k, k == 0)) {
			t.Errorf("step %d: %v without a cliff, %v with one never reached, want both %v", k+1, a, b, time.Duration(modelled(prompt+k, k == 0)))
		}
	}
}

func TestStepCliffRefusals(t *testing.T) {
	for _, c := range []StepCliff{{KVTokens: -1, Factor: 2}, {KVTokens: 10}, {KVTokens: 10, Factor: -1}} {
		cfg := testConfig()
		cfg.StepCliff = c
		if err := cfg.withDefaults().validate(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
