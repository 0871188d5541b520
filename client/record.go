package client

import "time"

// ErrorClass names why a request failed. The empty class means success.
// The classes are part of the output format (levels.csv columns, the
// error_class field of requests.jsonl) and are documented in docs/guide.md ("Error classes").
type ErrorClass string

// The error classes, in the order they are reported.
const (
	OK          ErrorClass = ""
	HTTP4xx     ErrorClass = "http_4xx"     // a 4xx status other than 429
	HTTP429     ErrorClass = "http_429"     // rate limited: status 429, or an error event with code 429
	HTTP5xx     ErrorClass = "http_5xx"     // a 5xx status
	Connect     ErrorClass = "connect"      // dial, DNS or TLS failure, or the connection reset before a response
	Timeout     ErrorClass = "timeout"      // --request-timeout expired (including a stalled stream)
	StreamError ErrorClass = "stream_error" // an {"error": ...} event inside an HTTP 200 stream
	Truncated   ErrorClass = "truncated"    // the stream ended without a finish_reason or [DONE]
	Malformed   ErrorClass = "malformed"    // at least one data event was not valid JSON
	Overrun     ErrorClass = "overrun"      // the stream passed a per-request bound (events, line length): reading stopped
	Canceled    ErrorClass = "canceled"     // the run was interrupted while the request was in flight, or its level's drain ran out
	Empty       ErrorClass = "empty"        // the stream ended normally but carried no token (no content or reasoning chunk)
)

// ErrorClasses lists every failure class in report order.
var ErrorClasses = []ErrorClass{HTTP4xx, HTTP429, HTTP5xx, Connect, Timeout, StreamError, Truncated, Malformed, Overrun, Canceled, Empty}

// Record is everything measured about one request. It is plain data: the
// sweep fills in the bookkeeping fields, the client the measurements, and
// report computes every figure from a slice of Records. It round-trips
// exactly through JSON (durations are integer nanoseconds), so a saved run
// can be re-summarised byte for byte.
//
// All instants are offsets from the run's epoch (one monotonic clock for the
// whole run). A zero offset means "did not happen", except Start.
type Record struct {
	// Bookkeeping, set by the sweep.
	Concurrency int  `json:"concurrency"`
	Repeat      int  `json:"repeat,omitempty"`
	Worker      int  `json:"worker"`
	Seq         int  `json:"seq"` // ticket number within the level, 0-based, warm-up first
	Warmup      bool `json:"warmup,omitempty"`
	PromptID    int  `json:"prompt_id"`
	// Session and Turn place a multi-turn request (sweep.Sessions): the
	// session's number within the level (the ticket of its first turn,
	// plus one) and the 1-based turn. Both are 0 for single-turn requests.
	Session int `json:"session,omitempty"`
	Turn    int `json:"turn,omitempty"`
	// Branch, ToolWait, Think and History say more of a session's turn:
	// its sub-session's number within the session (1-based, in the order
	// they started; 0 for the session's own turns), the pause before it was
	// sent, from the dataset (a tool wait) or --think-time, and the share
	// of its prompt's bytes that the session had sent before (history).
	Branch   int           `json:"branch,omitempty"`
	ToolWait time.Duration `json:"tool_wait_ns,omitempty"`
	Think    time.Duration `json:"think_ns,omitempty"`
	History  float64       `json:"history_share,omitempty"`
	// Rate is the level's load (sweep.LevelKey.Load): the offered rate in
	// requests per second (open loop, sweep --rates), a trace replay's
	// speed; 0 in a closed loop. With Concurrency (the cap, 0 for none)
	// and Mode it keys the level.
	Rate float64 `json:"rate,omitempty"`
	// Mode names the level's mode when that mode marks its records
	// (sweep.Mode.Marks: a trace replay, "replay"), so that a saved level
	// is recognised; empty for the closed loop, rates and sessions.
	Mode string `json:"mode,omitempty"`
	// TraceInput and TraceOutput are a trace replay's request lengths in
	// the trace, in tokens, which the level's length errors hold the
	// achieved ones against; 0 outside a replay.
	TraceInput  int `json:"trace_input_tokens,omitempty"`
	TraceOutput int `json:"trace_output_tokens,omitempty"`
	// Class is the request's traffic class (sweep --class); empty without
	// classes.
	Class string `json:"class,omitempty"`

	// Instants, as offsets from the run epoch.
	// Sched is the instant the request was scheduled at (open loop: its
	// arrival); 0 in a closed loop, where it is Start. See Origin.
	Sched        time.Duration `json:"sched_ns,omitempty"`
	Start        time.Duration `json:"start_ns"`         // just before the request is written
	Header       time.Duration `json:"header_ns"`        // response headers received
	FirstToken   time.Duration `json:"first_token_ns"`   // first chunk with non-empty content or reasoning
	FirstContent time.Duration `json:"first_content_ns"` // first chunk with non-empty content (not reasoning)
	LastToken    time.Duration `json:"last_token_ns"`    // last chunk with non-empty content or reasoning
	End          time.Duration `json:"end_ns"`           // stream finished ([DONE], EOF or error)

	// ChunkAt is the arrival time of every token-carrying chunk, as an offset
	// from Start. ChunkAt[0] == FirstToken-Start.
	ChunkAt []time.Duration `json:"chunk_ns"`
	// ReasoningChunks counts the token-carrying chunks that carried reasoning
	// (reasoning_content or reasoning) rather than content.
	ReasoningChunks int `json:"reasoning_chunks"`

	// Server-reported usage, settled as the package doc says. PromptTokens
	// is the last non-zero prompt_tokens of any usage object, up to
	// MaxPromptTokens. HasUsage
	// says that CompletionTokens and ReasoningTokens hold the server's
	// count: from the last usage with completion_tokens > 0, or from the
	// last usage at all when no token chunk came. It is false when there
	// was no usage, or only usage with completion_tokens 0 after token
	// chunks (a wrong count, which OutputTokens does not use).
	HasUsage         bool `json:"has_usage"`
	PromptTokens     int  `json:"prompt_tokens"`
	CompletionTokens int  `json:"completion_tokens"`
	ReasoningTokens  int  `json:"reasoning_tokens"`
	// PromptEstimate is toksweep's own count of the prompt it sent, by the
	// rule its simulator counts with (1.3 tokens a word, 4 a chat message;
	// a token-id prompt's ids): what a fitted model's prompt-token scale
	// holds PromptTokens against. 0 when unknown (--extra-body set the
	// prompt, or a run saved before it was recorded).
	PromptEstimate int `json:"prompt_estimate,omitempty"`

	FinishReason string     `json:"finish_reason"`
	Status       int        `json:"http_status"`
	ErrorClass   ErrorClass `json:"error_class"`
	Error        string     `json:"error,omitempty"`
	// MalformedChunks counts data events that were not valid JSON.
	MalformedChunks int `json:"malformed_chunks,omitempty"`

	// SendLag is, per token-carrying chunk, arrival time minus the send time
	// the server stamped into the event (the simulator's x_sent_unix_ns
	// extension). Nil when the server does not stamp events.
	SendLag []time.Duration `json:"send_lag_ns,omitempty"`

	// Reply is the streamed content text, kept only when the Prompt asked
	// for it (KeepReply) and cut at MaxReplyBytes. It is never saved: a
	// session reads it to build the next turn, then drops it.
	Reply string `json:"-"`
}

// Origin is the instant the request's latency counts from: Sched when it
// was scheduled (open loop), else Start. Time waited in the client between
// the two (coordinated omission, when left out) is part of its latency.
func (r *Record) Origin() time.Duration {
	if r.Sched != 0 {
		return r.Sched
	}
	return r.Start
}

// OK reports whether the request succeeded.
func (r *Record) OK() bool { return r.ErrorClass == OK }

// OutputTokens is the number of output tokens the request produced:
// the server's completion_tokens when HasUsage and the count is plausible
// (see UsageAbsurd), else the number of token-carrying chunks.
func (r *Record) OutputTokens() int {
	if r.HasUsage && !r.UsageAbsurd() {
		return r.CompletionTokens
	}
	return len(r.ChunkAt)
}

// Bounds on a plausible completion_tokens: no request produces more than
// MaxUsageTokens tokens, nor more than MaxTokensPerChunk per token-carrying
// chunk (a server that batches its stream writes sends a few tokens per
// chunk, not thousands).
const (
	MaxUsageTokens    = 1 << 24
	MaxTokensPerChunk = 1024
	// MaxPromptTokens bounds a kept prompt_tokens: a larger count (9.2e18
	// made aggregate_total_tps 3.7e21) is not kept, as if the server sent
	// none.
	MaxPromptTokens = 1 << 24
)

// UsageAbsurd reports whether the server's completion_tokens cannot be true:
// above MaxUsageTokens, or above MaxTokensPerChunk per token-carrying chunk
// (one chunk counted when none came). Such a count is not used
// (OutputTokens falls back to the chunks) and report flags the request as
// a token count mismatch.
func (r *Record) UsageAbsurd() bool {
	u := r.CompletionTokens
	return r.HasUsage && (u > MaxUsageTokens || u > MaxTokensPerChunk*max(len(r.ChunkAt), 1))
}
