package sim

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// api selects which OpenAI endpoint a request came in on.
type api int

const (
	chatAPI        api = iota // POST /v1/chat/completions
	completionsAPI            // POST /v1/completions
)

// defaultCompletionsMaxTokens is vLLM's max_tokens default for
// /v1/completions (chat defaults to the rest of the context window).
const defaultCompletionsMaxTokens = 16

// maxBodyBytes bounds a request body.
const maxBodyBytes = 16 << 20

// genRequest holds the request fields the simulator reads. Everything else
// (temperature, top_p, stop, ...) is accepted and ignored.
type genRequest struct {
	Model               string          `json:"model"`
	Messages            []chatMessage   `json:"messages"`
	Prompt              json.RawMessage `json:"prompt"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	MinTokens           int             `json:"min_tokens"`
	IgnoreEOS           bool            `json:"ignore_eos"`
	Priority            int             `json:"priority"` // vLLM's: lower is scheduled first
	Stream              bool            `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	// ids is the completions prompt when decodeRequest read it by hand (a
	// plain list of token ids), and then Prompt is nil.
	ids []uint32
}

// chatMessage is one chat turn; content is a string, null, or a list of
// parts of which the "text" ones count.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// plan is an accepted request: what to generate and how to send it.
type plan struct {
	job
	api          api
	id           string
	model        string
	created      int64
	stream       bool
	includeUsage bool
	reasoning    int    // the first this many tokens are reasoning (chat only)
	words        int    // words in the prompt, where the reply's text starts (fillerText)
	reasonField  string // delta/message field for reasoning
	perChunk     int
	caching      bool // prefix caching is on: usage reports cached_tokens
	cached       int  // prompt tokens served from the prefix cache, once finished
}

// fate is the failure injection drawn for one request.
type fate struct{ fail500, cut, malformed bool }

// drawFate draws one number per kind of failure, always all three, so the
// draws of request n do not depend on the earlier requests' outcomes.
func (s *Server) drawFate() fate {
	s.rngMu.Lock()
	defer s.rngMu.Unlock()
	return fate{
		fail500:   s.rng.Float64() < s.cfg.ErrorRate500,
		cut:       s.rng.Float64() < s.cfg.DisconnectRate,
		malformed: s.rng.Float64() < s.cfg.MalformedRate,
	}
}

// generate returns the handler for one completion endpoint.
func (s *Server) generate(a api) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.RecordArrivals {
			s.arrivals.addFrom(time.Now(), r.RemoteAddr)
		}
		var req genRequest
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err == nil {
			err = decodeRequest(body, &req)
		} else { // as a decoder reading the body would: its first value, or the read's error
			err = json.NewDecoder(io.MultiReader(bytes.NewReader(body), failingReader{err})).Decode(&req)
		}
		if err != nil {
			writeError(w, newAPIError(http.StatusBadRequest, "Invalid JSON in request body: %v", err))
			return
		}
		if aerr := headerPriority(r.Header, &req); aerr != nil {
			writeError(w, aerr)
			return
		}
		p, aerr := s.plan(a, &req)
		if aerr != nil {
			writeError(w, aerr)
			return
		}
		s.serve(w, r, p)
	}
}

// serve draws an accepted request's fate, then queues and answers it.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, p *plan) {
	f := s.drawFate()
	if f.fail500 {
		writeError(w, newAPIError(http.StatusInternalServerError, "Injected internal server error (toksweep sim)."))
		return
	}
	others := int(s.held.Add(1)) - 1
	defer s.held.Add(-1)
	if !s.overheadWait(r.Context(), p.promptTokens, others) {
		return // the client left
	}
	sq, err := s.eng.submit(p.job)
	switch {
	case errors.Is(err, errQueueFull):
		writeError(w, newAPIError(http.StatusTooManyRequests,
			"The server is busy: %d requests are already waiting. Please retry later.", s.cfg.QueueLimit429))
	case err != nil:
		writeError(w, errShuttingDown())
	case p.stream:
		s.stream(w, r, sq, p, f)
	default:
		s.respond(w, r, sq, p)
	}
}

// plan validates a request the way vLLM does and decides its output: how
// many tokens, which finish_reason, how many of them are reasoning.
func (s *Server) plan(a api, req *genRequest) (*plan, *apiError) {
	adapter, ok := s.modelIndex(req.Model)
	if !ok {
		return nil, newAPIError(http.StatusNotFound, "The model `%s` does not exist.", req.Model)
	}
	ids, msgs, aerr := promptIDs(a, req)
	if aerr != nil {
		return nil, aerr
	}
	if msgs != nil { // a text prompt, counted as the server's tokenizer would
		msgs.scale = s.cfg.PromptTokenScale
		ids = scaleIDs(ids, msgs.scale)
	}
	prompt := len(ids)
	maxTokens := s.cfg.MaxModelLen - prompt
	switch {
	case a == chatAPI && req.MaxCompletionTokens != nil:
		maxTokens = *req.MaxCompletionTokens
	case req.MaxTokens != nil:
		maxTokens = *req.MaxTokens
	case a == completionsAPI:
		maxTokens = defaultCompletionsMaxTokens
	}
	if aerr := s.checkLengths(prompt, maxTokens, req.MinTokens); aerr != nil {
		return nil, aerr
	}
	p := &plan{
		job:         job{promptTokens: prompt, target: maxTokens, finish: "length", priority: req.Priority, adapter: adapter},
		caching:     !s.cfg.NoPrefixCaching,
		api:         a,
		model:       cmp.Or(req.Model, s.cfg.Model),
		stream:      req.Stream,
		reasonField: s.cfg.ReasoningField,
		perChunk:    s.cfg.TokensPerChunk,
	}
	if msgs != nil {
		p.words = msgs.words()
	}
	p.includeUsage = req.StreamOptions != nil && req.StreamOptions.IncludeUsage
	if eos := max(s.cfg.EOSAfter, req.MinTokens); s.cfg.EOSAfter > 0 && !req.IgnoreEOS && eos <= maxTokens {
		p.target, p.finish = eos, "stop" // EOS on the last allowed token still counts as a stop, as in vLLM
	}
	if a == chatAPI {
		p.reasoning = int(s.cfg.ReasoningShare * float64(p.target))
	}
	if p.caching {
		p.hashes = blockHashes(msgs.withReply(ids, p.target, p.reasoning))
	}
	n := s.ids.Add(1)
	p.created = nowUnix()
	if a == chatAPI {
		p.id = fmt.Sprintf("chatcmpl-sim-%d-%d", s.created, n)
	} else {
		p.id = fmt.Sprintf("cmpl-sim-%d-%d", s.created, n)
	}
	return p, nil
}

// modelIndex is the job.adapter of the model a request names: 0 for the
// base model (or no name), 1+i for Config.Adapters[i]; false for a model
// the server does not serve.
func (s *Server) modelIndex(name string) (int, bool) {
	if name == "" || name == s.cfg.Model {
		return 0, true
	}
	i := slices.IndexFunc(s.cfg.Adapters, func(a Adapter) bool { return a.Name == name })
	return i + 1, i >= 0
}

// PriorityHeader is the request header whose integer sets a request's
// priority as the body's "priority" does (lower is scheduled first). When
// both are given, the header wins: a gateway in front of the server sets
// it.
const PriorityHeader = "X-Priority"

// headerPriority sets req's priority from the PriorityHeader, if given.
func headerPriority(h http.Header, req *genRequest) *apiError {
	v := h.Get(PriorityHeader)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return newAPIError(http.StatusBadRequest, "The %s header must be an integer, got %q.", strings.ToLower(PriorityHeader), v)
	}
	req.Priority = n
	return nil
}

// checkLengths applies vLLM's limits on max_tokens, min_tokens and the
// context window.
func (s *Server) checkLengths(prompt, maxTokens, minTokens int) *apiError {
	switch {
	case prompt >= s.cfg.MaxModelLen:
		return newAPIError(http.StatusBadRequest, "This model's maximum context length is %d tokens. "+
			"However, your request has %d input tokens. Please reduce the length of the input messages.",
			s.cfg.MaxModelLen, prompt)
	case maxTokens < 1:
		return newAPIError(http.StatusBadRequest, "max_tokens must be at least 1, got %d.", maxTokens)
	case maxTokens > s.cfg.MaxModelLen-prompt: // not prompt+maxTokens, which a max_tokens near MaxInt overflows
		return newAPIError(http.StatusBadRequest, "This model's maximum context length is %d tokens. "+
			"However, you requested %d tokens (%d in the messages, %d in the completion). "+
			"Please reduce the length of the messages or completion.",
			s.cfg.MaxModelLen, uint64(prompt)+uint64(maxTokens), prompt, maxTokens)
	case minTokens < 0:
		return newAPIError(http.StatusBadRequest, "min_tokens must be greater than or equal to 0, got %d.", minTokens)
	case minTokens > maxTokens:
		return newAPIError(http.StatusBadRequest,
			"min_tokens must be less than or equal to max_tokens=%d, got %d.", maxTokens, minTokens)
	}
	return nil
}

// promptIDs tokenizes a request's prompt by the package's rule (tokens.go);
// its length is the prompt's token count. It also returns the prompt's
// text, nil for a completions prompt of token ids.
func promptIDs(a api, req *genRequest) ([]uint32, *promptText, *apiError) {
	if a != chatAPI {
		if req.ids != nil {
			return req.ids, nil, nil
		}
		return completionPromptIDs(req.Prompt)
	}
	if len(req.Messages) == 0 {
		return nil, nil, newAPIError(http.StatusBadRequest, "messages must be a non-empty list.")
	}
	msgs := &promptText{roles: make([]string, len(req.Messages)), contents: make([]string, len(req.Messages))}
	for i, m := range req.Messages {
		text, err := messageText(m.Content)
		if err != nil {
			return nil, nil, newAPIError(http.StatusBadRequest, "messages[%d].content: %v", i, err)
		}
		msgs.roles[i], msgs.contents[i] = m.Role, text
	}
	return msgs.ids(), msgs, nil
}

// messageText extracts the text of a chat message's content.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var text string
	if err := json.Unmarshal(raw, &text); err == nil {
		return text, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("must be a string or a list of content parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
			b.WriteByte(' ')
		}
	}
	return b.String(), nil
}

// completionPromptIDs tokenizes a /v1/completions prompt: a string or a
// list of strings (joined by spaces) by the word rule; a list of token ids
// is taken as it is, and has no text.
//
// The kind is read from the first bytes, and only that kind is decoded:
// trying a list of ids as a list of strings first decodes the whole list
// (json reports the first mismatch only at the end), and at 3,000 ids a
// request that was two thirds of a replay's allocations, a garbage
// collection every 35 ms.
func completionPromptIDs(raw json.RawMessage) ([]uint32, *promptText, *apiError) {
	bad := func() ([]uint32, *promptText, *apiError) {
		return nil, nil, newAPIError(http.StatusBadRequest, "prompt must be a string, a list of strings or a list of token ids.")
	}
	var text string
	var texts []string
	switch v := bytes.TrimLeft(raw, jsonSpace); {
	case len(v) == 0 || v[0] != '[':
		if json.Unmarshal(raw, &text) != nil {
			return bad()
		}
	case len(bytes.TrimLeft(v[1:], jsonSpace)) > 0 && bytes.TrimLeft(v[1:], jsonSpace)[0] == '"':
		if json.Unmarshal(raw, &texts) != nil {
			return bad()
		}
		text = strings.Join(texts, " ")
	default:
		// Unmarshal appends to ids: sized by the commas (up to maxPresize,
		// whatever a hostile body holds), it does not regrow.
		ids := make([]int, 0, min(bytes.Count(raw, []byte{','})+1, maxPresize))
		if err := json.Unmarshal(raw, &ids); err != nil || len(ids) == 0 {
			return bad()
		}
		out := make([]uint32, len(ids))
		for i, id := range ids {
			out[i] = uint32(id)
		}
		return out, nil, nil
	}
	m := &promptText{contents: []string{text}, plain: true}
	return m.ids(), m, nil
}

// maxPresize bounds the ids a completions prompt's list is sized for
// before it is decoded.
const maxPresize = 1 << 16

// jsonSpace is the white space JSON allows between tokens.
const jsonSpace = " \t\r\n"
