package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestRunConfigRereadsAsWritten: a config read back from summary.json is
// written again byte for byte, including the old form of an adaptive run
// (levels_auto with --auto-max as the single level) and extra_body numbers
// beyond float64's precision.
func TestRunConfigRereadsAsWritten(t *testing.T) {
	for _, in := range []string{
		`{"url":"http://127.0.0.1:1/v1","model":"m","api":"chat","levels":[256],"levels_auto":true,"slo":{"decode_tps":40},"requests":0,"warmup":0,"repeat":1,"max_tokens":128,"temperature":null,"prompt_source":"default prompt, seed 0","api_key_set":false,"request_timeout":"10m0s","connect_timeout":"10s","insecure":false}`,
		`{"url":"http://127.0.0.1:1/v1","model":"m","api":"chat","levels_auto":true,"auto_max":64,"slo":{"error_rate":0},"requests":0,"warmup":0,"repeat":1,"max_tokens":128,"temperature":0,"prompt_source":"p","extra_body":{"seed":9007199254740993,"x":1.50},"api_key_set":true,"request_timeout":"10m0s","connect_timeout":"10s","insecure":false}`,
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var c RunConfig
		if err := dec.Decode(&c); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != in {
			t.Errorf("re-written as\n%s\nwant\n%s", out, in)
		}
	}
}

func TestRunConfigObjective(t *testing.T) {
	slo := SLO{DecodeTPS: 40, TTFTP95: 1500 * time.Millisecond, ErrorRate: new(0.0)}
	c := &RunConfig{SLO: NewSLOConfig(slo)}
	got, ok := c.Objective()
	if !ok || got.DecodeTPS != 40 || got.TTFTP95 != slo.TTFTP95 || got.ErrorRate == nil || *got.ErrorRate != 0 {
		t.Errorf("Objective() = %+v, %v; want %+v", got, ok, slo)
	}
	if NewSLOConfig(SLO{}) != nil {
		t.Error("an SLO with no criterion is recorded")
	}
	var none *RunConfig // a summary.json without a config
	if _, ok := none.Objective(); ok {
		t.Error("a run without a config has an SLO")
	}
}
