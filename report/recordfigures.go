package report

import "github.com/toksweep/toksweep/client"

// RecordFigures are one request's own figures, as requests.jsonl stores them
// beside its record (rundir writes the line).
type RecordFigures struct {
	TTFTMs    *float64 `json:"ttft_ms"`
	DecodeTPS *float64 `json:"decode_tps"`
	E2ETPS    *float64 `json:"e2e_tps"`
	// Smoothness (smooth.go), against a reader at the level's reading speed.
	MaxGapMs      *float64 `json:"max_gap_ms"`
	Stalls        int      `json:"stalls"`
	RebufferRatio *float64 `json:"rebuffer_ratio"`
}

// NewRecordFigures are r's figures against a reader at speed tok/s, rounded
// as the columns are.
func NewRecordFigures(r *client.Record, speed float64) RecordFigures {
	sm := RequestSmoothness(r, speed)
	return RecordFigures{TTFTMs: msJSON(RequestTTFT(r)),
		DecodeTPS: rounded(RequestDecodeTPS(r), tpsDecimals), E2ETPS: rounded(RequestE2ETPS(r), tpsDecimals),
		MaxGapMs: msJSON(sm.MaxGap), Stalls: sm.Stalls, RebufferRatio: rounded(sm.RebufferRatio, fracDecimals)}
}

// PaceOrDefault is the reader pace v, or ReadingSpeed when v is not set
// (0, or anything but a positive pace).
func PaceOrDefault(v float64) float64 { return paceOrDefault(v) }
