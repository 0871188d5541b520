package report

import (
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// TestSummarizeFigures checks each figure on hand-made records of known
// timing. Figures are compared as their levels.csv cells, so the test also
// pins the rounding; a column not listed is not checked.
func TestSummarizeFigures(t *testing.T) {
	// 51 one-token chunks 20 ms apart after a 200 ms TTFT; the stream ends
	// 50 ms after the last chunk, at 1.25 s.
	plain := with(stream(0, 200*msec, 20*msec, 51), func(r *client.Record) {
		r.End, r.PromptTokens = 1250*msec, 100
	})
	tests := []struct {
		name string
		l    sweep.Level
		want map[string]string
	}{{
		name: "one token per chunk",
		l:    level(1, plain),
		want: map[string]string{
			"requests_ok": "1", "requests_failed": "0",
			"ttft_p50_ms": "200.000", "ttft_p95_ms": "200.000", "ttft_p99_ms": "200.000",
			"ttfc_p50_ms": "200.000",
			// 50 tokens after the first over 1.0 s of decode.
			"decode_tps_p50": "50.000", "decode_tps_p10": "50.000", "decode_tps_mean": "50.000",
			// 51 tokens over 1.25 s, prefill and tail included.
			"e2e_tps_p50": "40.800", "e2e_tps_mean": "40.800",
			"itl_p50_ms": "20.000", "itl_p99_ms": "20.000", "itl_max_ms": "20.000",
			// One worker: the window is the whole request, [0, 1.25 s].
			"window_s": "1.250", "window_fallback": "false", "inflight_mean": "1.000",
			"aggregate_output_tps": "40.800",
			"aggregate_total_tps":  "120.800", // (51 + 100 prompt) / 1.25
			"requests_per_s":       "0.8000",
			"token_source":         "usage", "token_count_mismatch": "0",
			"completion_tokens_mean": "51.000", "completion_tokens_min": "51", "completion_tokens_max": "51",
			"finish_stop": "1", "finish_length": "0",
		},
	}, {
		name: "reasoning first: TTFT at the first reasoning chunk, TTFC at the first content",
		l: level(1, with(stream(0, 100*msec, 50*msec, 21), func(r *client.Record) {
			r.FirstContent = 600 * msec
			r.ReasoningChunks = 10
		})),
		want: map[string]string{"ttft_p50_ms": "100.000", "ttfc_p50_ms": "600.000", "decode_tps_p50": "20.000"},
	}, {
		name: "multi-token chunks: K=5, U=10, w=2",
		l: level(1, with(stream(0, 200*msec, 50*msec, 5), func(r *client.Record) {
			r.CompletionTokens = 10
			r.FinishReason = "length"
		})),
		want: map[string]string{
			"ttft_p50_ms": "200.000",
			// (10 − 2) / (4 × 50 ms)
			"decode_tps_p50": "40.000",
			// 10 / 400 ms
			"e2e_tps_p50": "25.000",
			// 50 ms / 2 tokens a chunk
			"itl_p50_ms": "25.000", "itl_p99_ms": "25.000", "itl_max_ms": "25.000",
			"aggregate_output_tps": "25.000",
			"token_count_mismatch": "1", "completion_tokens_mean": "10.000",
			"finish_stop": "0", "finish_length": "1",
		},
	}, {
		name: "no usage: one token per chunk",
		l: level(1, with(stream(0, 100*msec, 10*msec, 11), func(r *client.Record) {
			r.HasUsage, r.CompletionTokens = false, 0
		})),
		want: map[string]string{
			"token_source": "chunks", "completion_tokens_mean": "11.000",
			"decode_tps_p50": "100.000", "itl_p50_ms": "10.000", "token_count_mismatch": "0",
		},
	}, {
		name: "mixed sources",
		l: level(1,
			stream(0, 100*msec, 10*msec, 11),
			with(stream(time.Second, 100*msec, 10*msec, 11), func(r *client.Record) { r.HasUsage = false }),
		),
		want: map[string]string{"token_source": "mixed", "requests_ok": "2"},
	}, {
		name: "mismatch counts only beyond 2%",
		l: level(1,
			with(stream(0, 100*msec, 10*msec, 102), func(r *client.Record) { r.CompletionTokens = 100 }),
			with(stream(2*time.Second, 100*msec, 10*msec, 103), func(r *client.Record) { r.CompletionTokens = 100 }),
		),
		want: map[string]string{"token_count_mismatch": "1"},
	}, {
		name: "pooled ITL is weighted by tokens per chunk",
		l: level(1,
			stream(0, 100*msec, 10*msec, 3), // gaps 10, 10 ms with weight 1
			with(stream(time.Second, 100*msec, 60*msec, 2), func(r *client.Record) {
				r.CompletionTokens = 6 // one 60 ms gap, 3 tokens a chunk: 20 ms per token, weight 3
			}),
		),
		want: map[string]string{"itl_p50_ms": "20.000", "itl_p99_ms": "20.000", "itl_max_ms": "20.000"},
	}, {
		name: "ITL percentiles over uneven gaps",
		l: level(1, with(stream(0, 100*msec, 10*msec, 5), func(r *client.Record) {
			r.ChunkAt[4] = r.ChunkAt[3] + 50*msec // gaps 10, 10, 10, 50 ms
			r.LastToken, r.End = r.ChunkAt[4], r.ChunkAt[4]
		})),
		want: map[string]string{"itl_p50_ms": "10.000", "itl_p99_ms": "50.000", "itl_max_ms": "50.000"},
	}, {
		name: "failed requests are excluded from every rate but counted per class",
		l: level(3,
			stream(0, 100*msec, 100*msec, 10), // [0, 1 s], 10 tokens
			with(stream(0, 100*msec, 100*msec, 5), func(r *client.Record) {
				r.Worker, r.End, r.ErrorClass, r.Status = 1, time.Second, client.HTTP5xx, 500
			}),
			failed(client.Timeout, 2, 0, time.Second),
		),
		want: map[string]string{
			"requests_ok": "1", "requests_failed": "2", "err_http_5xx": "1", "err_timeout": "1",
			"err_http_429": "0", "ttft_p99_ms": "100.000", "completion_tokens_max": "10",
			"aggregate_output_tps": "10.000", "requests_per_s": "1.0000",
			"inflight_mean": "3.000", // failed requests were in flight too
		},
	}, {
		name: "warm-up is excluded",
		l: level(1,
			with(stream(0, 5*time.Second, 10*msec, 500), func(r *client.Record) { r.Warmup = true }),
			stream(10*time.Second, 100*msec, 10*msec, 11),
		),
		want: map[string]string{
			"requests_ok": "1", "ttft_p99_ms": "100.000", "completion_tokens_max": "11",
			"window_s": "0.200", "aggregate_output_tps": "55.000",
		},
	}, {
		name: "empty level: every figure undefined",
		l:    level(4),
		want: map[string]string{
			"requests_ok": "0", "ttft_p50_ms": "", "decode_tps_mean": "", "itl_max_ms": "",
			"aggregate_output_tps": "", "window_s": "", "inflight_mean": "", "token_source": "",
			"completion_tokens_mean": "", "completion_tokens_min": "", "client_limited": "false",
		},
	}, {
		name: "all failed: no single-stream figure, zero output",
		l:    level(1, failed(client.Connect, 0, 0, 10*msec)),
		want: map[string]string{
			"requests_failed": "1", "err_connect": "1", "ttft_p50_ms": "", "e2e_tps_p50": "",
			"aggregate_output_tps": "0.000", "requests_per_s": "0.0000", "token_source": "",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := figures(Summarize(tt.l, Settings{}))
			for col, want := range tt.want {
				if _, known := got[col]; !known {
					t.Fatalf("unknown column %q", col)
				}
				if got[col] != want {
					t.Errorf("%s = %q, want %q", col, got[col], want)
				}
			}
		})
	}
}

// TestSeedStory reproduces precision-under-pressure.txt: one stream of 150
// tokens, 140 ms to the first, then 12.28 ms a token. The same record is
// 81.4 tok/s by the decode definition and 76.2 tok/s by the curl one-liner's
// (tokens over wall time, prefill included).
func TestSeedStory(t *testing.T) {
	r := stream(0, 140*msec, 12280*time.Microsecond, 150)
	s := Summarize(level(1, r), Settings{})
	if s.TTFTP50 != 140*msec {
		t.Errorf("TTFT = %v, want 140ms", s.TTFTP50)
	}
	// decode: 149 tokens / (149 × 12.28 ms) = 81.433; e2e: 150 / 1.96972 s = 76.153.
	if got := Num(s.DecodeTPSP50, 1); got != "81.4" {
		t.Errorf("decode tok/s = %s (%v), want 81.4", got, s.DecodeTPSP50)
	}
	if got := Num(s.E2ETPSP50, 1); got != "76.2" {
		t.Errorf("e2e tok/s = %s (%v), want 76.2", got, s.E2ETPSP50)
	}
	var b strings.Builder
	if err := WriteConsole(&b, []LevelStats{s}); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "81.4") || !strings.Contains(out, "76.2") {
		t.Errorf("console does not show both definitions:\n%s", out)
	}
}
