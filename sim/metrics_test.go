package sim

import (
	"bufio"
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$`)

// scrape fetches /metrics and checks that it is Prometheus text: every
// sample parses, belongs to a family declared with # HELP and # TYPE, and
// carries the model_name label. It returns the samples by name{labels}.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q", ct)
	}
	families := map[string]string{} // name → type
	samples := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) >= 4 && f[0] == "#" && f[1] == "TYPE" {
			families[f[2]] = f[3]
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a Prometheus sample line: %q", line)
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("line %q: value: %v", line, err)
		}
		base := m[1]
		if families[base] == "" {
			base = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(base, "_bucket"), "_sum"), "_count")
		}
		if families[base] == "" {
			t.Errorf("sample %s has no # TYPE", m[1])
		}
		if !strings.Contains(m[2], `model_name="test-model"`) {
			t.Errorf("sample %q lacks the model_name label", line)
		}
		samples[m[1]+strings.Replace(m[2], `model_name="test-model"`, "", 1)] = v
	}
	return samples
}

func TestMetrics(t *testing.T) {
	_, url := startSim(t, testConfig())
	before := scrape(t, url)
	for _, name := range []string{
		"vllm:num_requests_running{}", "vllm:num_requests_waiting{}", "vllm:kv_cache_usage_perc{}",
		"vllm:generation_tokens_total{}", "vllm:prompt_tokens_total{}",
		`vllm:request_success_total{finished_reason="length",}`,
		"vllm:time_to_first_token_seconds_count{}", "vllm:request_queue_time_seconds_count{}",
		`vllm:time_to_first_token_seconds_bucket{le="+Inf",}`,
	} {
		if v, ok := before[name]; !ok || v != 0 {
			t.Errorf("before any request: %s = %v (present %v), want 0", name, v, ok)
		}
	}
	resp := post(t, context.Background(), url+"/v1/chat/completions", chatBody("hello", 5)) // 6 prompt tokens
	resp.Body.Close()
	after := scrape(t, url)
	for name, want := range map[string]float64{
		"vllm:generation_tokens_total{}":                        5,
		"vllm:prompt_tokens_total{}":                            6,
		`vllm:request_success_total{finished_reason="length",}`: 1,
		"vllm:time_to_first_token_seconds_count{}":              1,
		`vllm:time_to_first_token_seconds_bucket{le="+Inf",}`:   1,
		"vllm:request_queue_time_seconds_count{}":               1,
		"vllm:request_prefill_time_seconds_count{}":             1,
		"vllm:num_requests_running{}":                           0,
		"vllm:kv_cache_usage_perc{}":                            0,
	} {
		if after[name] != want {
			t.Errorf("after one request: %s = %v, want %v", name, after[name], want)
		}
	}
	if after["vllm:time_to_first_token_seconds_sum{}"] <= 0 || after["vllm:request_prefill_time_seconds_sum{}"] <= 0 {
		t.Errorf("TTFT or prefill sum did not move")
	}
	// One request alone never waits: its TTFT is its prefill step.
	if q, p, ttft := after["vllm:request_queue_time_seconds_sum{}"], after["vllm:request_prefill_time_seconds_sum{}"], after["vllm:time_to_first_token_seconds_sum{}"]; q+p > ttft*1.0001 || p <= 0 {
		t.Errorf("queue %v + prefill %v should make up TTFT %v", q, p, ttft)
	}
}
