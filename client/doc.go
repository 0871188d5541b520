// Package client sends streamed requests to one OpenAI-compatible server
// (vLLM, SGLang, TGI, llama.cpp, Ollama, llm-d) and measures each one into a
// Record. It knows HTTP and server-sent events; it knows nothing about
// concurrency, which is the sweep's, or figures, which are report's.
//
// # Why not go-openai's stream
//
// The hot path reads SSE itself. go-openai's typed stream drops
// delta.reasoning, cannot send temperature 0 (omitempty) or extra body
// fields, runs regular expressions on every line, and reports a stream cut
// short as io.EOF, just like [DONE]. go-openai is still used where it
// serves: openai.ErrorResponse and openai.APIError decode error bodies and
// error events (APIError copes with a code that is an int, a string or
// null), and openai.Model decodes /models.
//
// # Timing
//
// All instants are offsets on one monotonic clock, Client.Now, which the
// sweep uses too. Start is taken just before the request is sent, Header
// when the response headers have arrived, End when the stream ends ([DONE],
// end of input or error). The response body is read through a reader that
// stamps the clock after every read that returns data; an event's arrival
// is the stamp of the read that completed its (last) data line. That is
// accurate to the read and costs one clock reading per read, not per line.
//
// # What a chunk is worth
//
// A token-carrying chunk is one in which some choice has a non-empty
// delta.content, delta.reasoning_content or delta.reasoning (chat), or
// text (completions). Role-only chunks, empty content (Ollama's last chunk)
// and empty finish chunks carry no token. ChunkAt holds the arrival of every
// token-carrying chunk; FirstContent is the first with content or text
// rather than reasoning; ReasoningChunks counts those with reasoning only.
//
// Usage may come in any chunk, and is settled when the stream ends. A
// usage object whose counts are all zero is ignored: Ollama's completions
// stream sends zeros in every chunk and the real figures only at the end,
// and a stream cut before that end must fall back to counting chunks rather
// than report zero tokens. Otherwise later usage replaces earlier usage,
// with one exception. PromptTokens is the last non-zero prompt_tokens of
// any usage. CompletionTokens and ReasoningTokens come from the last usage
// whose completion_tokens is above zero, and HasUsage says there was one;
// a usage whose completion_tokens is 0 or missing (some servers send only
// prompt_tokens) counts for them only when the stream had no
// token-carrying chunk at all, since after K > 0 such chunks it cannot be
// right. The counting rule, which report applies through
// Record.OutputTokens: output tokens are CompletionTokens when HasUsage,
// else K, the number of token-carrying chunks.
//
// When a chunk carries the simulator's extension "x_sent_unix_ns" (the Unix
// time in nanoseconds at which the server sent it), SendLag gets, per
// token-carrying chunk, the arrival minus that send time.
//
// # Failures
//
// Do never returns an error: a failure is data, an ErrorClass and a one-line
// message. When several happen the most telling wins: Canceled (the caller's
// context ended), Timeout (Config.RequestTimeout expired, also when a stream
// stalls), Overrun (the stream passed a bound on what one request may hold:
// more than 2×max_tokens+64 events, 131072 when max_tokens is not known, or
// a line or event over 4 MiB; reading stops and the connection is closed,
// so a server streaming forever costs bounded memory), an error event in
// the stream (StreamError, or HTTP429 when its
// code is 429: llm-d reports a full queue that way, inside an HTTP 200),
// Truncated (the input ended without finish_reason or [DONE]), Malformed (a
// data event was not a JSON object; reading goes on, and later tokens and
// usage still count). Non-2xx responses are HTTP4xx, HTTP429 or HTTP5xx with
// the server's message, cut to 1000 bytes (a finish_reason to 64).
// Redirects are never followed, since the API key
// would go along: a 3xx is HTTP4xx and its message names the Location.
// Connect covers DNS, dial, TLS and a connection lost before any response.
//
// The API key, credentials in the base URL and credential-like header values
// never appear in anything the package produces: they are scrubbed from
// every message, including text the server echoes back, in every form an
// echo may take (Basic base64, escaped, percent-encoded, split across
// lines: see secretsOf and scrubWith). Scrubber does the same for the
// app's own output. URLs are shown as
// RedactURL renders them (no userinfo, no query), and SensitiveHeader says
// which headers hold credentials: both are exported for the app's output.
//
// # Connections
//
// Each stream has a connection of its own (HTTP/1.1), and the pool keeps
// more idle connections than Config.MaxConns. A request that has to open
// one pays for TCP and TLS setup in its time to first token, so WarmConns
// opens them before the load. Probe cancels its request after the first
// event, which closes its connection rather than pooling it.
//
// # Parsing
//
// SSE lines end in LF or CRLF; "data:" may be followed by a space or not;
// several data lines join with "\n"; comments and the event, id and retry
// fields are ignored; "data: [DONE]" ends the stream; an "error:" line
// (llama.cpp) is an error event. Each data event is read by a validating,
// allocation-free scanner that looks only at the members above. Its meaning
// is defined by encoding/json decoding into a minimal struct (see
// parseChunkStd), which it falls back to when it cannot be sure to agree;
// FuzzParseEvent checks the two against each other.
package client
