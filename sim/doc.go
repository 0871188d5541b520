// Package sim owns toksweep's built-in simulated LLM server: an
// OpenAI-compatible HTTP server that behaves like vLLM's, backed by a small
// continuous-batching engine that steps in real time.
//
// It is a model, not a measurement of hardware. Every number it produces
// comes from the few parameters in Config (a fixed per-step cost, a cost per
// running sequence, a cost per token of context in the batch, a prefill
// rate, a step token budget and a KV-cache size), so a sweep against it
// shows what those parameters imply and nothing else. Its purpose is to give
// toksweep a known, reproducible target: tests and demos can check that the
// client, the sweep and the report recover figures the simulator was built
// to produce.
//
// # Engine
//
// One scheduler goroutine runs steps back to back while any sequence is
// running, and blocks while the batch and the queue are empty. Each step is
// planned the way vLLM V1's scheduler plans one (sched.go):
//
//   - The running sequences, in order, each take one decode token, or the
//     next chunk of their prefill, from the step's token budget
//     (MaxNumBatchedTokens; unlimited when 0, so a prompt is prefilled whole
//     in its first step).
//   - Each takes the KV blocks its new tokens need. When there are none
//     left, the newest running sequence is preempted (recompute mode): its
//     blocks are freed and it goes back to the head of the queue, to prefill
//     its prompt and the tokens it had generated again. Its stream pauses;
//     nothing is lost.
//   - If nobody was preempted, waiting requests are admitted first come,
//     first served, while the batch holds fewer than MaxNumSeqs sequences,
//     budget is left and the KV cache has blocks for their prompt beyond its
//     cached prefix. A request that does not fit blocks those behind it.
//   - Priorities (the request's "priority", or its X-Priority header, which
//     wins; lower first, 0 by default) order the queue as vLLM's
//     --scheduling-policy priority does: by priority, then arrival. The
//     preempted sequence is the lowest-priority running one (the newest of
//     those), taken back out of the step if it was already planned into it;
//     a full batch is not preempted for a waiting request of higher
//     priority, as in vLLM (#40004). A preempted request goes back ahead of
//     the waiting ones of its priority. With one priority this is FCFS
//     exactly. vLLM refuses a non-zero priority unless started with that
//     policy; the simulator always honours it.
//
// The step lasts
//
//	prefill + DecodeBase + DecodePerSeq×B + DecodePerCtxToken×ctx
//
// where prefill is the prompt tokens computed in the step (cached ones are
// free) over PrefillTokensPerSec, plus PrefillBase when there are any, B
// is the number of sequences in the step and ctx the sum of their context
// (prompt plus tokens generated so far).
// A request naming a LoRA adapter (Config.Adapters) runs at its Cost c:
// its prefill tokens cost c×, and a step in which any of its requests runs
// has its decode part (DecodeBase + DecodePerSeq×B + DecodePerCtxToken×ctx)
// multiplied by 1 + Σ(c−1) over the adapters in the step, each once.
// So without a budget a long prompt stalls the whole batch for its whole
// prefill, and with one, for about one chunk per step. With short prompts
// and the budget not reached, this is exactly the earlier, unchunked model,
// which the presets were calibrated on. With Jitter > 0 the step is
// multiplied by 1+Jitter×N(0,1). At the end of the step every sequence whose
// prefill is complete emits TokensPerChunk tokens as one event, so a
// request's time to first token is its queue wait plus the steps of its
// prefill. Step deadlines are absolute (each step starts at the previous
// deadline), so pacing errors do not accumulate and a stall of the host of
// up to a second is caught up; the pacer sleeps on a timer until shortly
// before a deadline, naps (internal/nap: a timerfd read through the
// network poller) until 0.2ms before it, and yields for the rest.
//
// # KV cache and prefix caching
//
// The KV cache (kvcache.go) holds KVCacheTokens tokens in blocks of
// BlockSize (16). Its default, room for MaxNumSeqs full-length sequences,
// never preempts. vllm:kv_cache_usage_perc is the share of blocks in use.
//
// Prefix caching (on unless NoPrefixCaching) follows vLLM's: a prompt is
// turned into a deterministic token sequence of its counted length
// (tokens.go), whose full blocks are hashed by content, each hash chained
// to its parent's. Once computed, a block is registered under its hash;
// when its last user finishes it stays cached but evictable, least recently
// used first (a request's last blocks first). An admitted request takes the
// longest cached run of its leading blocks and skips their prefill; the last
// partial block is never cached and the last prompt token is always
// computed. A request's generated tokens are cached too, as vLLM caches the
// full blocks of generated tokens, under the ids of the reply as the next
// turn of the conversation sends it back (a chat assistant message, or the
// completions prompt's text followed by the reply). The generated text reads
// back as exactly the tokens generated, so the next turn finds the whole
// earlier conversation cached but its last partial block. A reply with
// reasoning does not line up (it is sent back without the reasoning). A
// preempted request finds its own blocks again if they were not evicted.
// /metrics counts the lookups in tokens (vllm:prefix_cache_queries_total,
// vllm:prefix_cache_hits_total) and the preemptions
// (vllm:num_preemptions_total), and a request's usage carries
// prompt_tokens_details.cached_tokens when some of its prompt was cached (as
// vLLM's does when its prompt-token details are on).
//
// Speculative decoding is modelled only by its outcome (Config.DraftTokens):
// a decode step verifies k draft tokens, each accepted with a set chance
// drawn from a generator seeded with Config.Seed, and emits 1 + the
// accepted ones; its cost is a plain step's. The GPUs are a power model
// (gpu.go): idle watts plus watts per running sequence, an energy counter
// integrating them, memory from the KV cache's usage.
//
// What is not modelled: swapping, the drafter's own cost, an adapter's
// loading and vLLM's --max-loras, and anything the network adds.
//
// # Protocol
//
// The server answers GET /v1/models (the base model, then each adapter
// with the base as its parent; a request for any other model is vLLM's
// 404), GET /health, GET /metrics (Prometheus
// text with vLLM's metric names), GET /gpu/metrics (dcgm-exporter's
// DCGM_FI_DEV_* fields, one line per GPU), and POST /v1/chat/completions and
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
// The generated text is deterministic filler words, each one or two tokens
// as the prompt rule below counts it at its place in the conversation (a
// two-token word is streamed in two pieces). Prompt tokens are counted, not tokenized: ceil(1.3 × the number of
// whitespace-separated words), plus tokcount.ChatMessageOverhead tokens per chat
// message, and at least 1 (see PromptTokens and ChatPromptTokens), times
// Config.PromptTokenScale for a server whose tokenizer counts otherwise (a
// fitted model's). The token ids behind prefix caching follow the same
// count.
//
// Failure injection (500s, 429s over a queue limit, cut streams, malformed
// chunks) is drawn from a generator seeded with Config.Seed, one draw per
// decision per request in arrival order, so a run is reproducible.
package sim
