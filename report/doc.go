// Package report owns toksweep's numbers and formats: it turns the raw
// outcome of a level (sweep.Level, a slice of client.Record) into figures,
// and writes those figures out. It knows nothing about HTTP or scheduling.
//
// It has two parts, with plain data between them (the run directory that
// persists them, requests.jsonl included, is package rundir's):
//
//   - Summarize (pure) computes a LevelStats from a sweep.Level. Every figure
//     is defined once, in docs/metrics.md, and tested against hand-made
//     records of known timing. Percentiles are internal/pct's nearest
//     rank, the one method used everywhere (sweep's timer p99 included).
//   - Renderers write to an io.Writer and never print on their own:
//     WriteConsole (aligned tables), LevelsCSV (levels.csv, one row per
//     level, appendable), RecordFigures (each request's own figures in
//     requests.jsonl) and WriteSummaryJSON (summary.json). Every per-level
//     figure is one entry of Columns, the registry that levels.csv,
//     summary.json, the console tables, report.html (LevelTables) and the
//     docs' column lists are rendered from. Ms, Num, CSVNum and Mean are the
//     one "no value" rule.
//
// Only measured requests count: warm-up records are excluded from every
// figure. Percentiles and means are over successful measured requests unless
// stated. An undefined figure (no sample) is NaN, or NoSample for a time
// figure; it is rendered as an empty CSV cell, "-" on the console and null
// in JSON.
//
// # levels.csv
//
// One row per level, columns in this order. Columns is the registry they
// are written from, and this list is generated from it. Times are
// milliseconds with 3 decimals, rates tokens (or requests) per second with 3
// (4 for requests_per_s) decimals.
//
//	concurrency             workers   C (open loop: the --max-concurrency cap, 0 for none)
//	repeat                  -         repetition index of the level, 0-based (the console and report.html count runs from 1)
//	requests_ok             requests  successful measured requests
//	requests_failed         requests  failed measured requests, any class
//	ttft_p50_ms             ms        TTFT, p50
//	ttft_p95_ms             ms        TTFT, p95
//	ttft_p99_ms             ms        TTFT, p99 (the max when n < 100)
//	ttfc_p50_ms             ms        TTFC, p50
//	decode_tps_p50          tok/s     decode rate per request, p50
//	decode_tps_p10          tok/s     decode rate per request, p10
//	decode_tps_mean         tok/s     decode rate per request, mean
//	e2e_tps_p50             tok/s     e2e rate per request, p50
//	e2e_tps_p10             tok/s     e2e rate per request, p10 (the slowest tenth; what --slo-e2e-tps checks)
//	e2e_tps_mean            tok/s     e2e rate per request, mean
//	e2e_latency_p50_ms      ms        e2e latency per request (End − Start), p50
//	e2e_latency_p90_ms      ms        e2e latency per request, p90 (vLLM's p90 E2EL)
//	e2e_latency_p95_ms      ms        e2e latency per request, p95 (the --slo-e2e-p95 figure)
//	e2e_latency_p99_ms      ms        e2e latency per request, p99 (the max when n < 100)
//	itl_p50_ms              ms        ITL per token, weighted p50
//	itl_p99_ms              ms        ITL per token, weighted p99
//	itl_max_ms              ms        ITL per token, max
//	aggregate_output_tps    tok/s     output tokens arriving in the window / window_s
//	aggregate_total_tps     tok/s     output plus prompt tokens / window_s
//	requests_per_s          req/s     successful requests ending in the window / window_s
//	window_s                s         steady-state window length
//	window_fallback         bool      the window is the whole level (no steady state)
//	inflight_mean           requests  mean measured requests in flight over the window
//	client_limited          bool      see client_limited above
//	client_limited_reason   -         the evidence of the checks that fired
//	end_reason              -         why the level stopped: completed, deadline, canceled, aborted; crashed or failed when report recovered it from the level file
//	slo_pass                bool      the level meets every --slo-* criterion; empty without an SLO
//	slo_failed              -         the failing criteria with their measured values, ; -separated
//	completion_tokens_mean  tokens    U per successful request, mean
//	completion_tokens_min   tokens    U, min
//	completion_tokens_max   tokens    U, max
//	finish_stop             requests  successful, finish_reason stop
//	finish_length           requests  successful, finish_reason length
//	token_source            -         usage, chunks or mixed
//	token_count_mismatch    requests  successful with usage, |K − U| / U > 2%
//	ttft_turn1_p50_ms       ms        TTFT of sessions' first turns, p50
//	ttft_turn1_p95_ms       ms        TTFT of sessions' first turns, p95
//	ttft_later_p50_ms       ms        TTFT of sessions' later turns (2 on), p50
//	ttft_later_p95_ms       ms        TTFT of sessions' later turns, p95
//	prompt_tokens_turn1_mean tokens    usage prompt_tokens of first turns, mean
//	prompt_tokens_later_mean tokens    usage prompt_tokens of later turns, mean
//	sessions                sessions  measured sessions (0 without --turns/--multi-turn)
//	sessions_failed         sessions  sessions ended by a failed turn
//	session_failures        -         the failed turns' classes, timeout=1 http_5xx=2
//	session_turns_mean      turns     successful turns per session, mean
//	session_duration_p50_ms ms        session span (last End − first Start, think time included), p50
//	session_duration_p95_ms ms        session span, p95
//	session_server_share    fraction  share of session time with a turn in flight
//	session_tool_share      fraction  share idle before a turn sent after a tool wait
//	session_think_share     fraction  the same, after a think time
//	ttft_long_prefix_p50_ms ms        TTFT of turns ≥ 80% history, p50
//	ttft_long_prefix_p95_ms ms        the same, p95
//	long_prefix_turns       turns     successful turns ≥ 80% history
//	input_length_error_mean fraction  trace replay: (prompt_tokens − the trace's input length) / that length, mean (signed) over the successful requests; empty outside a replay
//	input_length_error_p99  fraction  trace replay: |the same|, p99
//	output_length_error_mean fraction  trace replay: (U − the trace's output length) / that length, mean (signed)
//	output_length_error_p99 fraction  trace replay: |the same|, p99
//	err_<class>             requests  failed requests per class, one column per class
//	server_scrapes          scrapes   in-level scrapes of the server's metrics; empty when not scraped
//	server_running_mean     requests  server's running requests, mean over the in-level scrapes
//	server_waiting_mean     requests  server's waiting requests, the same
//	server_kv_usage_mean    fraction  server's KV-cache usage, the same (4 decimals)
//	server_prefix_hit_rate  fraction  server's prefix-cache hits / queries over the level (4 decimals)
//	server_ttft_mean_ms     ms        server's TTFT histogram, mean over the level
//	server_queue_mean_ms    ms        server's queue-time histogram, mean over the level
//	server_prefill_mean_ms  ms        server's prefill-time histogram, mean over the level
//	server_spec_draft_tokens tokens    speculative decoding's draft tokens over the level; empty without its counters
//	server_spec_accepted_tokens tokens    of which the target model accepted
//	server_spec_acceptance  fraction  accepted / draft tokens (4 decimals)
//	server_spec_accepted_per_draft tokens    accepted tokens / drafts: the mean accepted length
//	gpu_count               GPUs      GPUs in the telemetry of --gpu-metrics-url; empty when not sampled
//	gpu_util_mean           %         GPU utilisation, each GPU's mean over the in-level scrapes, averaged over the GPUs
//	gpu_mem_used_mean_mib   MiB       memory used, each GPU's mean over the in-level scrapes, summed
//	gpu_mem_used_max_mib    MiB       memory used, the largest in-level sample of any one GPU
//	gpu_power_mean_w        W         power, each GPU's mean over the in-level scrapes, summed
//	gpu_energy_j            J         energy over the level, summed over the GPUs (gpu_energy_source says how)
//	gpu_energy_source       -         counter (the energy counter's increase), power×time (power mean × the level's span) or mixed
//	gpu_output_tokens_per_j tok/J     output tokens of the level's successful requests (warm-up included) / gpu_energy_j
//	gpu_j_per_request       J         gpu_energy_j / the level's successful requests (warm-up included)
//	gpu_incomplete          -         why GPU figures are empty (a host never answered, a GPU without a reading); empty when complete
//	max_gap_p95_ms          ms        longest gap between two token chunks per request (TTFT excluded), p95
//	stall_share             fraction  share of successful requests with a gap > 1 s
//	rebuffer_ratio_p95      fraction  reader's waiting / reading time U/r per request (r = --reading-speed, 6 tok/s by default), p95
//	smooth_share            fraction  share of requests with a token whose reader never waited
//	rate                    req/s     the offered rate λ the level is keyed by (open loop; a trace replay: its speed, ×); empty in a closed loop
//	offered_rps             req/s     realised arrival rate: (n − 1) / (last − first scheduled instant) of the measured requests
//	achieved_rps            req/s     completion rate (open loop): (finished − 1) / (last End − first End), finished = not canceled
//	dispatch_delay_p50_ms   ms        dispatch delay Start − Sched (open loop), p50
//	dispatch_delay_p99_ms   ms        dispatch delay, p99 (client-limited above 10 ms, uncapped)
//	dispatch_delay_max_ms   ms        dispatch delay, max
//	inflight_peak           requests  most measured requests on the wire (Start to End) at once
//	ttft_rise_ms            ms        TTFT fitted over the scheduled instant: slope × span (open loop)
//	unstable                bool      the open-loop level could not keep up (see Open loop); empty in a closed loop
//	unstable_reason         -         the stability checks that fired
//	tpot_p50_ms             ms        TPOT per request, (End − FirstToken) / (U − 1), p50 (vLLM's TPOT)
//	tpot_p99_ms             ms        TPOT per request, p99
//	goodput_rps             req/s     good requests per second: goodput_ratio × achieved_rps (closed loop: good / ok × requests_per_s); empty without an SLO
//	goodput_ratio           fraction  finished requests that succeeded and met every per-request SLO / finished
//
// docs/metrics.md gives the exact formula of every column.
package report
