// Package sim owns toksweep's built-in simulated LLM server: an
// OpenAI-compatible HTTP server that behaves like vLLM's, backed by a small
// continuous-batching engine that steps in real time.
//
// It is a model, not a measurement of hardware. Every number it produces
// comes from the few parameters in Config (a fixed per-step cost, a cost per
// running sequence, a cost per token of context in the batch and a prefill
// rate), so a sweep against it shows what those parameters imply and nothing
// else. Its purpose is to give toksweep a known, reproducible target: tests
// and demos can check that the client, the sweep and the report recover
// figures the simulator was built to produce.
//
// # Engine
//
// One scheduler goroutine runs steps back to back while any sequence is
// running, and blocks while the batch and the queue are empty. At the start
// of a step it admits waiting requests first come, first served, while the
// batch holds fewer than MaxNumSeqs sequences. The step lasts
//
//	prefill + DecodeBase + DecodePerSeq×B + DecodePerCtxToken×ctx
//
// where prefill is the sum of prompt_tokens/PrefillTokensPerSec over the
// requests admitted in this step (prefill is not chunked, so it stalls the
// whole batch), B is the batch size and ctx the sum over running sequences of
// prompt tokens plus tokens generated so far. With Jitter > 0 the step is
// multiplied by 1+Jitter×N(0,1). At the end of the step every running
// sequence emits TokensPerChunk tokens as one event, so a request's time to
// first token is its queue wait plus its admission step. Step deadlines are
// absolute (each step starts at the previous deadline), so pacing errors do
// not accumulate and a stall of the host of up to a second is caught
// up; the pacer sleeps until shortly before a deadline and spins for the
// rest.
//
// What is not modelled: chunked prefill, KV-cache limits and preemption
// (vllm:kv_cache_usage_perc is reported against KVCacheTokens but never
// constrains admission), prefix caching, speculative decoding, and anything
// the network adds.
//
// # Protocol
//
// The server answers GET /v1/models, GET /health, GET /metrics (Prometheus
// text with vLLM's metric names), and POST /v1/chat/completions and
// /v1/completions, streaming (SSE) and not, in vLLM's shapes: a role-only
// first chat chunk sent in the same flush as the first token, "usage":null
// on every token chunk, a final chunk with an empty delta and the
// finish_reason, a usage chunk with empty choices only when
// stream_options.include_usage is set, then "data: [DONE]". Errors use vLLM's
// {"object":"error",...} body. Every SSE event's JSON carries
// "x_sent_unix_ns", the wall-clock time at which it was written, when
// Config.StampSendTime is set, so a client can separate server pacing from
// its own delays.
//
// The generated text is deterministic filler, one word and a space per
// token. Prompt tokens are counted, not tokenized: ceil(1.3 × the number of
// whitespace-separated words), plus ChatMessageOverhead tokens per chat
// message, and at least 1 (see PromptTokens and ChatPromptTokens).
//
// Failure injection (500s, 429s over a queue limit, cut streams, malformed
// chunks) is drawn from a generator seeded with Config.Seed, one draw per
// decision per request in arrival order, so a run is reproducible.
package sim
