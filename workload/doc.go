// Package workload owns what toksweep sends: it turns one prompt source into
// a prompt set (a []client.Prompt) in a deterministic order. It reads files
// and builds text; it knows nothing about HTTP, time or figures.
//
// # Sources
//
// Exactly one source is used (Load checks this):
//
//   - a fixed prompt: Options.Prompt, or the content of Options.PromptFile,
//     or Options.DefaultPrompt when no source is given;
//   - a JSONL dataset (Format "jsonl"): one request per line, either
//     {"prompt": "..."} (a completion prompt, sent as one user message to
//     the chat API) or {"messages": [{"role": ..., "content": ...}, ...]}
//     (a conversation, flattened to "role: content" lines for the
//     completions API), with an optional positive integer "max_tokens".
//     Other members are ignored; blank lines are skipped. A malformed line
//     is an error naming the file and the line number;
//   - a ShareGPT file (Format "sharegpt"): a JSON array of
//     {"conversations": [{"from": "human", "value": ...}, {"from": "gpt",
//     "value": ...}, ...]}. The first human turn (from "human" or "user") is
//     the prompt; the turn right after it, when it is from the model ("gpt",
//     "chatgpt", "assistant" or "bard"), sets the request's output target:
//     its EstimateTokens count becomes the request's max_tokens.
//     Conversations without such a pair are skipped and counted;
//   - synthetic prompts (Options.InputTokens > 0): text of about N tokens by
//     EstimateTokens, see below.
//
// Per-request output targets (JSONL max_tokens, the ShareGPT model turn)
// are dropped when Options.IgnoreSourceMaxTokens is set, which the command
// line does when --max-tokens is given explicitly.
//
// # Order
//
// A set holds its entries permuted by Options.Seed (a PCG seeded with it),
// so the sweep, which sends Prompts[n % len] as its n-th request, cycles
// through every entry in an order that depends only on the seed. A
// prompt's ID is its position in the source, not in the permutation: the
// 0-based line index of a JSONL file, the 0-based index into a ShareGPT
// array (skipped conversations included), or the synthetic prompt's
// generation index. requests.jsonl records it as prompt_id.
//
// # Token estimate
//
// Without the server's tokenizer, workload counts tokens with its own rule
// of thumb, EstimateTokens: ceil(1.3 × whitespace-separated words). It is
// the usual ratio for English under BPE tokenizers and the one toksweep's
// simulator charges, but a real tokenizer will differ by some percent either
// way, and a chat template adds a few tokens per message. What is recorded
// per request is the server's own usage.prompt_tokens.
//
// # Synthetic prompts
//
// A synthetic prompt of n tokens is deterministic filler (sentences of
// English words drawn by a PCG seeded from Options.Seed and the prompt's
// index) laid out as
//
//	[shared prefix, K tokens][stamp][filler]
//
// so that its EstimateTokens count is the largest count ≤ n the 1.3 rule
// allows (at most one token short). The word list is chosen so that real
// BPE tokenizers count about 1.3 tokens per word of it as well: 1.30 with
// cl100k_base and 1.29 with o200k_base (tiktoken) over 3,000 words, within
// 3% for 300; tokenizers of other families may differ more. The shared prefix (Options.
// SharedPrefixTokens, default none) is the same text in every request of the
// run, so a server with prefix caching can reuse it: that is how to measure
// prefix caching on purpose. The stamp is one word unique to the run and the
// request (a random run tag and a counter), written by Set.Prompter as
// each request is sent. Prefix caches match whole blocks from the first token,
// so nothing after a differing stamp can be reused: without a shared
// prefix, no request can reuse another's prefill (beyond the few tokens of
// a chat template), not within a level, not across levels, and not across
// runs. Lengths vary when Options.InputStddev > 0: each prompt's n is drawn
// from a normal distribution around InputTokens, rounded, and clamped to
// [K + 2, 2 × InputTokens].
//
// # Multi-turn sessions
//
// With Options.Turns (synthetic) or Options.MultiTurn (a dataset's whole
// conversations: ShareGPT human→model pairs, or JSONL lines {"turns":
// [...]}) Load also returns Set.Sessions, which hands out one Conversation
// per session and builds each turn's prompt from the history: the earlier
// user messages, the replies the model streamed, and the new message; for
// the completions API flattened by FlattenTurns. A synthetic session's
// first message, of InputTokens (DefaultOpeningTokens, 1000, when 0),
// carries the session's stamp right after the shared prefix, so no two
// sessions share more than --shared-prefix-tokens; later messages are new
// filler of FollowUpTokens (50) each, like a chat's follow-up questions
// after a pasted document (conversation.go).
//
// # Bounds
//
// Every input has an upper bound (bounds.go), checked before or while it is
// read, so that a mistyped size or a device given as a file (/dev/zero) is
// a one-line error and not gigabytes of memory: MaxInputTokens,
// MaxOutputTokens (a JSONL "max_tokens"), MaxPromptBytes (a prompt file,
// one JSONL line), MaxDatasetBytes and MaxPrompts. Files are read through a
// limit and datasets decoded as they are read, never read whole first.
package workload
