package report

import "github.com/toksweep/toksweep/workload/trace"

// traceColumns are a trace replay level's length errors: how far the
// achieved input and output lengths were from the trace's
// (lengtherrors.go; docs/metrics.md, "Trace replay"). Empty (NaN)
// outside a replay, and when no request was counted.
func traceColumns() []Column {
	col := func(name, def string, which func(*LevelStats) *trace.LengthError, p99 bool) Column {
		return Column{Name: name, Unit: "fraction", Def: def, Out: InFiles, Decimals: fracDecimals,
			Value: func(s *LevelStats) Value {
				if p99 {
					return number(which(s).P99)
				}
				return number(which(s).Mean)
			}}
	}
	in := func(s *LevelStats) *trace.LengthError { return &s.InputLengthError }
	out := func(s *LevelStats) *trace.LengthError { return &s.OutputLengthError }
	return []Column{
		col("input_length_error_mean", "trace replay: (prompt_tokens − the trace's input length) / that length, mean (signed) over the successful requests; empty outside a replay", in, false),
		col("input_length_error_p99", "trace replay: \\|the same\\|, p99", in, true),
		col("output_length_error_mean", "trace replay: (U − the trace's output length) / that length, mean (signed)", out, false),
		col("output_length_error_p99", "trace replay: \\|the same\\|, p99", out, true),
	}
}
