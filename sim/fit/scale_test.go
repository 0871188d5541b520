package fit

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sim"
)

// The scale is Σ usage.prompt_tokens / Σ prompt_estimate over the
// successful requests that carry both: a failure, a request without the
// server's count and one without toksweep's are left out.
func TestPromptScaleCounted(t *testing.T) {
	var recs []client.Record
	for i := range 12 {
		recs = append(recs, client.Record{PromptTokens: 9 * (i + 1), PromptEstimate: 2 * (i + 1)})
	}
	recs = append(recs,
		client.Record{PromptTokens: 1000, PromptEstimate: 1, ErrorClass: client.Timeout},
		client.Record{PromptTokens: 0, PromptEstimate: 50},
		client.Record{PromptTokens: 70, PromptEstimate: 0})
	var m Model
	p := promptScale([]Level{{Records: recs[:6]}, {Records: recs[6:]}}, &m)
	if !p.Identified || p.Value != 4.5 || len(m.NotIdentified) != 0 {
		t.Errorf("scale %v (identified %v, notes %q), want exactly 4.5 from 12 requests", p.Value, p.Identified, m.NotIdentified)
	}
	if !strings.Contains(p.Counted, "12 requests") {
		t.Errorf("counted %q, want it to name the 12 requests", p.Counted)
	}
	p = promptScale([]Level{{Records: recs[:minScaled-1]}}, &m)
	if p.Identified || p.Value != 1 || len(m.NotIdentified) != 1 || !strings.Contains(m.NotIdentified[0], "prompt-token scale is not identified") {
		t.Errorf("from %d requests: scale %v (identified %v, notes %q), want 1, not identified, with a sentence", minScaled-1, p.Value, p.Identified, m.NotIdentified)
	}
}

// A fit of hand-made records whose server counts half toksweep's count
// writes prompt_token_scale 0.5 to model.json, which the simulator takes;
// the step costs do not move (they are per server token); and a model
// without it leaves the simulator's count alone.
func TestPromptScaleInTheModel(t *testing.T) {
	spec := variedSpec
	spec.seed = 3
	levels := synth(knownTruth, spec)
	plain, err := FromLevels(levels, Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		for i := range l.Records {
			l.Records[i].PromptEstimate = 2 * l.Records[i].PromptTokens
		}
	}
	m, err := FromLevels(levels, Options{Resamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	back, cfg := roundTrip(t, m)
	if cfg.PromptTokenScale != 0.5 || len(back.Draws) == 0 || *back.Draws[0].PromptTokenScale != 0.5 {
		t.Errorf("PromptTokenScale %v, want 0.5 in the config and in every draw", cfg.PromptTokenScale)
	}
	for _, name := range []string{"decode_base", "prefill_per_token", "decode_per_ctx_token"} {
		if a, b := param(t, plain, name).Value, param(t, m, name).Value; a != b {
			t.Errorf("%s moved with the scale: %v, then %v", name, a, b)
		}
	}
	if *plain.Sim.PromptTokenScale != 1 {
		t.Errorf("records that count as toksweep does: scale %v, want 1", *plain.Sim.PromptTokenScale)
	}
	var none Model
	cfg, _ = sim.Preset("fast")
	none.Apply(&cfg)
	if cfg.PromptTokenScale != 0 {
		t.Errorf("a model without the scale set PromptTokenScale %v", cfg.PromptTokenScale)
	}
	if _, err := Read(strings.NewReader(`{"format":"toksweep-model/1","sim":{"prompt_token_scale":0}}`)); err == nil || !strings.Contains(err.Error(), "sim.prompt_token_scale 0") {
		t.Errorf("a zero scale: err %v, want it refused", err)
	}
}
