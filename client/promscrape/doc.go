// Package promscrape reads a server's own account of itself from its
// Prometheus endpoint: it parses the text exposition format (stdlib only),
// picks out the vLLM metrics that explain client-side figures, and samples
// them while a sweep level runs. It knows HTTP and the exposition format;
// it knows nothing about the sweep's scheduling or the report's figures
// beyond the plain data it hands over (LevelMetrics).
//
// # Parsing
//
// Parse reads the Prometheus text format (and the OpenMetrics text that
// servers send when asked): "# HELP", "# TYPE" and other comments are
// skipped, label values may hold escaped quotes, commas and braces, values
// may be NaN, +Inf or -Inf, and a timestamp or an OpenMetrics exemplar after
// the value is ignored. Unknown metrics are kept but never looked at. A
// malformed line is skipped and counted, so one bad line cannot hide the
// rest; a body with no sample at all and at least one malformed line is an
// error (it is not an exposition: an HTML page, say). Samples of one name
// are summed over their label sets (engines, models), counting how many
// there were; NaN and infinite values are left out of the sum.
//
// # Metrics
//
// The names are vLLM's (see Names); llm-d-inference-sim and toksweep's own
// simulator use the same ones. SGLang's sglang:* names are not read. Its
// speculative-decoding counters (vllm:spec_decode_*) give a level's draft
// acceptance.
//
// # GPU telemetry
//
// GPUSampler scrapes NVIDIA dcgm-exporter endpoints, one per GPU host, on
// the same schedule, and keeps each GPU apart (ParseGPUs reads the labels
// Parse ignores): its power, utilisation and memory gauges, and its energy
// counter between the level's edges. GPUMetrics.Totals sums them over the
// GPUs, or leaves a total undefined when any GPU or host lacks it.
package promscrape
