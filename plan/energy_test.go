package plan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/report"
)

// TestEnergyPerMillionTokens: a level run twice, its GPUs measuring 600
// tokens in 200 J and 900 in 400 J, is planned at 1500 / 600 = 2.5 tok/J:
// 1e6 / 2.5 = 400000 J, 400000 / 3.6e6 kWh per million output tokens,
// printed beside the cost and written to plan.json; a repeat without the
// GPUs' energy leaves it out rather than price half the level.
func TestEnergyPerMillionTokens(t *testing.T) {
	sec := time.Second
	stats, levels := build([]lvl{{2, 2, sec, yes, false}, {2, 2, sec, yes, false}})
	gpu := func(tokens int, j float64) report.GPUStats {
		g := report.GPUStats{Sampled: true, OutputTokens: tokens}
		g.EnergyJ = j
		return g
	}
	stats[0].GPU, stats[1].GPU = gpu(600, 200), gpu(900, 400)
	p, err := fromParts("run", "", stats, levels, Options{PeakRPS: 10, Headroom: 1, GPUsPerReplica: 1, GPUHourUSD: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1e6 / 2.5 / 3.6e6; p.Level.TokensPerJ != 2.5 || math.Abs(p.KWhPerMTok-want) > 1e-15 {
		t.Errorf("tok/J %v, kWh per million %v; want 2.5 and %v", p.Level.TokensPerJ, p.KWhPerMTok, want)
	}
	var text bytes.Buffer
	if err := p.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "= 1e6 / (2.5000 × 3.6e6) = 0.1111 kWh (400000 J)") {
		t.Errorf("text:\n%s", text.String())
	}
	var j map[string]any
	var b bytes.Buffer
	if err := p.WriteJSON(&b); err != nil || json.Unmarshal(b.Bytes(), &j) != nil {
		t.Fatal(err)
	}
	if v, ok := j["kwh_per_million_output_tokens"].(float64); !ok || math.Abs(v-p.KWhPerMTok) > 1e-15 {
		t.Errorf("plan.json kwh_per_million_output_tokens = %v", j["kwh_per_million_output_tokens"])
	}

	stats[1].GPU = report.GPUStats{}
	p, err = fromParts("run", "", stats, levels, Options{PeakRPS: 10, Headroom: 1})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	_ = p.WriteText(&text)
	b.Reset()
	_ = p.WriteJSON(&b)
	j = nil
	_ = json.Unmarshal(b.Bytes(), &j)
	if _, inJSON := j["kwh_per_million_output_tokens"]; !math.IsNaN(p.KWhPerMTok) || strings.Contains(text.String(), "kWh") || inJSON {
		t.Errorf("a repeat without energy: %v kWh\n%s", p.KWhPerMTok, text.String())
	}
}
