package report

import (
	"encoding/json"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// replayLevel is a replay level (speed 2) of five requests with the
// trace's lengths: inputs 100, 200, 400, 1000 against prompt_tokens 110,
// 190, 400, 1000 (errors +10%, −5%, 0, 0) and the fifth's missing; outputs
// 4, 5, 2, 10 tokens against 4, 4, 4, 10 (0, +25%, −50%, 0); a failed
// request (prompt_tokens 50 against 1000) and a warm-up (10 against 100)
// left out.
func replayLevel() sweep.Level {
	mk := func(in, traceIn, out, traceOut int) client.Record {
		r := stream(0, 10*msec, msec, out)
		r.PromptTokens, r.TraceInput, r.TraceOutput, r.Mode, r.Rate, r.Sched = in, traceIn, traceOut, sweep.ReplayMode, 2, 1
		return r
	}
	recs := []client.Record{
		mk(110, 100, 4, 4), mk(190, 200, 5, 4), mk(400, 400, 2, 4), mk(1000, 1000, 10, 10),
		mk(0, 300, 3, 3), // no prompt_tokens: left out of the input's errors only
		with(mk(50, 1000, 1, 1), func(r *client.Record) { r.ErrorClass, r.Status = client.HTTP5xx, 500 }),
		with(mk(10, 100, 1, 9), func(r *client.Record) { r.Warmup = true }),
	}
	recs[4].TraceOutput = 3
	l := level(0, recs...)
	l.Mode, l.Rate = sweep.ReplayMode, 2
	return l
}

// The length errors of a replay level, by hand: input e = +0.10, −0.05,
// 0, 0 (the fifth has no prompt_tokens): mean 0.05/4 = 0.0125, p99 of
// |e| the max, 0.10; output e = 0, +0.25, −0.50, 0, 0: mean −0.25/5 =
// −0.05, p99 0.50. levels.csv and summary.json carry them at 4 decimals;
// a level outside a replay has no value.
func TestReplayLengthErrors(t *testing.T) {
	s := Summarize(replayLevel(), Settings{})
	in, out := s.InputLengthError, s.OutputLengthError
	if in.N != 4 || !near(in.Mean, 0.0125) || !near(in.P99, 0.10) {
		t.Errorf("input length error %+v, want N 4, mean 0.0125, p99 0.10", in)
	}
	if out.N != 5 || !near(out.Mean, -0.05) || !near(out.P99, 0.50) {
		t.Errorf("output length error %+v, want N 5, mean −0.05, p99 0.50", out)
	}
	f := figures(s)
	for name, want := range map[string]string{
		"input_length_error_mean": "0.0125", "input_length_error_p99": "0.1000",
		"output_length_error_mean": "-0.0500", "output_length_error_p99": "0.5000",
	} {
		if f[name] != want {
			t.Errorf("levels.csv %s = %q, want %q", name, f[name], want)
		}
	}
	b, err := json.Marshal(NewLevelJSON(s))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["output_length_error_mean"] != -0.05 || m["input_length_error_p99"] != 0.1 {
		t.Errorf("summary.json: output_length_error_mean %v, input_length_error_p99 %v; want -0.05, 0.1", m["output_length_error_mean"], m["input_length_error_p99"])
	}

	closed := figures(Summarize(level(1, stream(0, 70*msec, 0, 1)), Settings{}))
	for _, name := range []string{"input_length_error_mean", "input_length_error_p99", "output_length_error_mean", "output_length_error_p99"} {
		if closed[name] != "" {
			t.Errorf("closed loop: %s = %q, want the empty cell", name, closed[name])
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }
