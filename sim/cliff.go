package sim

import (
	"fmt"
	"math"
)

// StepCliff is a step-time cliff the fitted model cannot represent (a
// server that slows down sharply once its KV working set passes a size, as
// one whose KV spills out of fast memory): every step whose batch holds
// more than KVTokens tokens of context (its sequences' KV after the step's
// prefill, the ctx of stepDuration) lasts Factor times its modelled time.
// The zero value (Factor 0) is no cliff.
type StepCliff struct {
	KVTokens int
	Factor   float64
}

// scale is the cliff's factor for a step holding ctx tokens of context: 1
// at or below the threshold, and without a cliff.
func (c StepCliff) scale(ctx int) float64 {
	if c.Factor == 0 || ctx <= c.KVTokens {
		return 1
	}
	return c.Factor
}

// check says what is wrong with the cliff, "" when nothing is.
func (c StepCliff) check() string {
	if c.Factor == 0 && c.KVTokens == 0 {
		return ""
	}
	if c.KVTokens < 0 || !(c.Factor > 0) || math.IsInf(c.Factor, 0) {
		return fmt.Sprintf("StepCliff needs KVTokens ≥ 0 and a positive, finite Factor, got %d tokens × %g", c.KVTokens, c.Factor)
	}
	return ""
}
