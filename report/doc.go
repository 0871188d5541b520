// Package report owns toksweep's numbers and formats: it turns the raw
// outcome of a level (sweep.Level, a slice of client.Record) into figures,
// and writes those figures out. It knows nothing about HTTP or scheduling.
//
// It has three parts, with plain data between them:
//
//   - Summarize (pure) computes a LevelStats from a sweep.Level. Every figure
//     is defined once, in docs/metrics.md, and tested against hand-made
//     records of known timing. Percentile and WeightedPercentile are the
//     one percentile method (nearest rank) used everywhere.
//   - Renderers write to an io.Writer and never print on their own:
//     WriteConsole (two aligned tables), LevelsCSV (levels.csv, one row per
//     level, appendable), WriteRecords/ReadRecords (requests.jsonl) and
//     WriteSummaryJSON (summary.json).
//   - RunDir persists a run as it goes: each level's row and records are
//     appended and fsync'd as the level ends, and summary.json is replaced
//     atomically, so an interrupted run leaves valid files. ReadRunDir reads
//     one back (SavedRun): the records are the source of truth, and every
//     figure is recomputed from them by Summarize.
//
// Only measured requests count: warm-up records are excluded from every
// figure. Percentiles and means are over successful measured requests unless
// stated. An undefined figure (no sample) is NaN, or NoSample for a time
// figure; it is rendered as an empty CSV cell, "-" on the console and null
// in JSON.
//
// # levels.csv
//
// One row per level, columns in this order (see LevelsCSVHeader). Times are
// milliseconds with 3 decimals, rates tokens (or requests) per second with 3
// (4 for requests_per_s) decimals.
//
//	concurrency             -       C, the level's number of workers
//	requests_ok             count   successful measured requests
//	requests_failed         count   failed measured requests, any class
//	ttft_p50_ms             ms      time to first token (FirstToken - Start), p50
//	ttft_p95_ms             ms      the same, p95
//	ttft_p99_ms             ms      the same, p99 (the max when n < 100)
//	decode_tps_p50          tok/s   per-request (U - w) / (LastToken - FirstToken), p50
//	decode_tps_p10          tok/s   the same, p10: the slowest tenth of users
//	decode_tps_mean         tok/s   the same, mean
//	e2e_tps_p50             tok/s   per-request U / (End - Start), p50
//	e2e_tps_mean            tok/s   the same, mean
//	itl_p50_ms              ms      inter-token latency per token, weighted p50
//	itl_p99_ms              ms      the same, weighted p99
//	itl_max_ms              ms      the same, max
//	aggregate_output_tps    tok/s   output tokens arriving in the steady-state window / window
//	aggregate_total_tps     tok/s   the same plus prompt tokens of requests whose first token is in it
//	requests_per_s          req/s   successful requests ending in the window / window
//	token_source            -       usage, chunks or mixed: where token counts come from
//	end_reason              -       why the level stopped (sweep.EndReason)
//	repeat                  -       repetition index of the level
//	window_s                s       steady-state window length
//	window_fallback         bool    true when there was no steady state and the window is the whole level
//	inflight_mean           -       mean measured requests in flight over the window
//	ttfc_p50_ms             ms      time to first content token (FirstContent - Start), p50
//	completion_tokens_mean  tokens  output tokens U per successful request, mean
//	completion_tokens_min   tokens  the same, min
//	completion_tokens_max   tokens  the same, max
//	finish_stop             count   successful requests with finish_reason "stop"
//	finish_length           count   successful requests with finish_reason "length"
//	token_count_mismatch    count   successful requests whose usage and chunk count differ by > 2%
//	err_<class>             count   failed requests per class, in client.ErrorClasses order
//	client_limited          bool    the load generator, not the server, may have limited the level (corroborated checks)
//	client_limited_reason   -       the evidence of the client-limit checks that fired
//	e2e_tps_p10             tok/s   e2e rate per request, p10 (what --slo-e2e-tps checks)
//	slo_pass                bool    the level meets every --slo-* criterion (empty: no SLO)
//	slo_failed              -       the failing criteria with their measured values
//	server_scrapes          count   in-level scrapes of the server's metrics (empty: not scraped)
//	server_running_mean     -       vllm:num_requests_running, mean over those scrapes
//	server_waiting_mean     -       vllm:num_requests_waiting, the same
//	server_kv_usage_mean    -       vllm:kv_cache_usage_perc (a fraction), the same
//	server_prefix_hit_rate  -       prefix-cache hits / queries over the level
//	server_ttft_mean_ms     ms      vllm:time_to_first_token_seconds, Δsum/Δcount over the level
//	server_queue_mean_ms    ms      vllm:request_queue_time_seconds, the same
//	server_prefill_mean_ms  ms      vllm:request_prefill_time_seconds, the same
//
// docs/metrics.md gives the exact formula of every column.
package report
