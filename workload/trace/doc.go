// Package trace owns production request traces: it reads the four public
// trace formats (Mooncake JSONL, Qwen-Bailian JSONL, Azure CSV, BurstGPT
// CSV) into one list of timed requests, detects the format from the
// content, slices a window of a trace, summarises it (rates, lengths, the
// best possible prefix-hit rate, sessions), and builds each request's
// prompt from the trace's hash blocks without a tokenizer (prompt.go). It
// knows nothing about HTTP or sending: the replay's arrivals live in sweep.
//
// # Formats
//
//   - Mooncake (kvcache-ai/Mooncake, FAST25-release/traces): JSONL
//     {"timestamp": ms, "input_length": n, "output_length": n, "hash_ids":
//     [ints]}; one hash id stands for a 512-token block of the prompt.
//   - Qwen-Bailian (alibaba-edu/qwen-bailian-usagetraces-anon): JSONL with
//     chat_id, parent_chat_id (-1 for a conversation's first turn),
//     timestamp (seconds, float), input_length, output_length, type, turn
//     and hash_ids (16-token blocks). A follow-up's input_length already
//     includes its history.
//   - Azure LLM inference traces (2023, 2024): CSV with the header
//     TIMESTAMP,ContextTokens,GeneratedTokens and timestamps such as
//     "2023-11-16 18:15:46.6805900". No hash ids.
//   - BurstGPT: CSV with the header Timestamp (seconds),Model,Request
//     tokens,Response tokens,Total tokens,Log Type. A failed request has
//     Response tokens 0 and is skipped (and counted). No hash ids.
//
// Every request's instant is kept relative to the trace's first request
// (the earliest timestamp), so a replay starts at once. Requests are sorted
// by instant, stably (the file's order among equal instants).
//
// # Skipped lines and bounds
//
// A line that names no request it can replay (a BurstGPT failure, an
// output length of 0) is skipped, and Trace.Skipped names it with its line
// number and why. A malformed line is an error "NAME:LINE: why". Every
// field is bounded: lengths within [1, workload.MaxInputTokens] (input) and
// [1, workload.MaxOutputTokens] (output), timestamps finite, non-negative
// and within MaxSpan, hash ids within [0, 2^53) and no more of them than
// the input length fills blocks. The file holds at most
// workload.MaxDatasetBytes, a line workload.MaxPromptBytes, and at most
// workload.MaxPrompts requests.
package trace
