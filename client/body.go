package client

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// bodyTemplate is the request body, encoded once: only the prompt and
// max_tokens change from one request to the next.
type bodyTemplate struct {
	api        API
	tail       []byte // the constant members, encoded, without the opening brace
	sendPrompt bool   // false when ExtraBody sets messages/prompt itself
	sendMax    bool   // false when ExtraBody sets max_tokens itself
	sendMin    bool   // false when ExtraBody sets min_tokens itself
}

// newBodyTemplate encodes model, stream, stream_options, temperature (only
// when set, and then even when 0) and ExtraBody, which is merged last so it
// may override any of them, and the per-request members too.
func newBodyTemplate(cfg Config) (bodyTemplate, error) {
	fixed := map[string]any{
		"model":          cfg.Model,
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
	}
	if cfg.Temperature != nil {
		fixed["temperature"] = *cfg.Temperature
	}
	maps.Copy(fixed, cfg.ExtraBody)
	_, prompt := cfg.ExtraBody[promptKey(cfg.API)]
	_, maxTokens := cfg.ExtraBody["max_tokens"]
	_, minTokens := cfg.ExtraBody["min_tokens"]
	b, err := json.Marshal(fixed)
	if err != nil {
		return bodyTemplate{}, fmt.Errorf("request body: %w", err)
	}
	return bodyTemplate{api: cfg.API, tail: b[1:], sendPrompt: !prompt, sendMax: !maxTokens, sendMin: !minTokens}, nil
}

func promptKey(api API) string {
	if api == Completions {
		return "prompt"
	}
	return "messages"
}

// build returns the body of one request. maxTokens <= 0 omits max_tokens
// (servers reject 0) and lets the server choose.
func (t *bodyTemplate) build(p Prompt, maxTokens int) []byte {
	var prompt []byte
	if t.sendPrompt {
		prompt = t.prompt(p)
	}
	b := make([]byte, 0, len(prompt)+len(t.tail)+48)
	b = append(b, '{')
	if t.sendPrompt {
		b = append(b, '"')
		b = append(b, promptKey(t.api)...)
		b = append(b, `":`...)
		b = append(b, prompt...)
		b = append(b, ',')
	}
	if t.sendMax && maxTokens > 0 {
		b = append(b, `"max_tokens":`...)
		b = strconv.AppendInt(b, int64(maxTokens), 10)
		b = append(b, ',')
	}
	if t.sendMin && p.MinTokens > 0 {
		b = append(b, `"min_tokens":`...)
		b = strconv.AppendInt(b, int64(p.MinTokens), 10)
		b = append(b, ',')
	}
	return append(b, t.tail...)
}

// prompt encodes the messages (chat) or the prompt text or token ids
// (completions).
func (t *bodyTemplate) prompt(p Prompt) []byte {
	var v any
	switch {
	case t.api == Completions && len(p.TokenIDs) > 0:
		return appendInts(make([]byte, 0, 7*len(p.TokenIDs)+2), p.TokenIDs)
	case t.api == Completions && len(p.Messages) > 0:
		v = flatten(p.Messages)
	case t.api == Completions:
		v = p.Text
	case len(p.Messages) > 0:
		v = p.Messages
	default:
		v = [1]Message{{Role: "user", Content: p.Text}}
	}
	b, _ := json.Marshal(v) // strings and Messages always encode
	return b
}

// flatten renders a conversation as "role: content" lines for the
// completions API.
func flatten(msgs []Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(m.Role)
		b.WriteString(": ")
		b.WriteString(m.Content)
	}
	return b.String()
}

// appendInts appends ids as a JSON array of integers.
func appendInts(b []byte, ids []int) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']')
}
