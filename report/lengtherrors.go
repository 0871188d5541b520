package report

import "github.com/toksweep/toksweep/workload/trace"

// lengthErrors are a trace replay level's input and output length errors
// (docs/metrics.md, "Trace replay"): over its successful measured requests
// that carry the trace's lengths, the server's prompt_tokens against the
// trace's input length and the output tokens (U) against its output
// length (trace.LengthErrors: the mean of the signed relative errors, the
// p99 of their magnitudes; a request without prompt_tokens is left out of
// the input's). Outside a replay no request carries them: N is 0 and the
// figures NaN (no value).
func lengthErrors(ok []*request) (in, out trace.LengthError) {
	var gotIn, wantIn, gotOut, wantOut []int
	for _, r := range ok {
		if r.traceIn > 0 {
			gotIn, wantIn = append(gotIn, r.prompt), append(wantIn, r.traceIn)
		}
		if r.traceOut > 0 {
			gotOut, wantOut = append(gotOut, r.tokens), append(wantOut, r.traceOut)
		}
	}
	return trace.LengthErrors(gotIn, wantIn), trace.LengthErrors(gotOut, wantOut)
}
