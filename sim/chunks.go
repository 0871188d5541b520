package sim

// The JSON shapes the server writes, after vLLM's OpenAI server.

// chunk is one streamed event. Usage is null on every chunk but the usage
// chunk, as in vLLM's streams.
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   *usage `json:"usage"`
}

// deltaChoice is a chat chunk's choice. Delta is a map because the
// reasoning field's name is configurable; an empty map is written as {}.
type deltaChoice struct {
	Index        int               `json:"index"`
	Delta        map[string]string `json:"delta"`
	Logprobs     *struct{}         `json:"logprobs"`
	FinishReason *string           `json:"finish_reason"`
}

// textChoice is a completions choice, streamed or not.
type textChoice struct {
	Index        int       `json:"index"`
	Text         string    `json:"text"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

// messageChoice is a non-streamed chat choice.
type messageChoice struct {
	Index        int            `json:"index"`
	Message      map[string]any `json:"message"`
	Logprobs     *struct{}      `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
}

type usage struct {
	PromptTokens     int            `json:"prompt_tokens"`
	CompletionTokens int            `json:"completion_tokens"`
	TotalTokens      int            `json:"total_tokens"`
	Details          *usageDetails  `json:"completion_tokens_details,omitempty"`
	Prompt           *promptDetails `json:"prompt_tokens_details,omitempty"`
}

// promptDetails says how much of the prompt the prefix cache served.
type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type usageDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// body is the whole non-streamed reply.
type body struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices any    `json:"choices"`
	Usage   usage  `json:"usage"`
}

func (p *plan) chunk(choices any) chunk {
	obj := "chat.completion.chunk"
	if p.api == completionsAPI {
		obj = "text_completion"
	}
	return chunk{ID: p.id, Object: obj, Created: p.created, Model: p.model, Choices: choices}
}

func (p *plan) roleChunk() chunk {
	return p.chunk([]deltaChoice{{Delta: map[string]string{"role": "assistant"}}})
}

// tokenChunk carries tokens [from, to): reasoning first, then content; a
// chunk that straddles the boundary carries both fields.
func (p *plan) tokenChunk(from, to int) chunk {
	if p.api == completionsAPI {
		return p.chunk([]textChoice{{Text: fillerText(p.words, from, to)}})
	}
	delta := map[string]string{}
	if from < p.reasoning {
		delta[p.reasonField] = fillerText(p.words, from, min(to, p.reasoning))
	}
	if to > p.reasoning {
		delta["content"] = p.content(max(from, p.reasoning), to)
	}
	return p.chunk([]deltaChoice{{Delta: delta}})
}

// content is the text of tokens [from, to) of a chat reply's content, which
// starts after the reasoning: the reply the next turn sends back is the
// content alone, so its words follow the prompt's.
func (p *plan) content(from, to int) string {
	return fillerText(p.words, from-p.reasoning, to-p.reasoning)
}

func (p *plan) finalChunk() chunk {
	if p.api == completionsAPI {
		return p.chunk([]textChoice{{FinishReason: &p.finish}})
	}
	return p.chunk([]deltaChoice{{Delta: map[string]string{}, FinishReason: &p.finish}})
}

func (p *plan) usageChunk() chunk {
	c := p.chunk([]deltaChoice{})
	u := p.usage()
	c.Usage = &u
	return c
}

// malformedEvent is a chunk cut off in the middle of its JSON.
func (p *plan) malformedEvent() string {
	return `{"id":"` + p.id + `","object":"` + p.chunk(nil).Object + `","choices":[{"index":0,"tru`
}

func (p *plan) usage() usage {
	u := usage{PromptTokens: p.promptTokens, CompletionTokens: p.target, TotalTokens: p.promptTokens + p.target}
	if p.reasoning > 0 {
		u.Details = &usageDetails{ReasoningTokens: p.reasoning}
	}
	if p.caching && p.cached > 0 { // as vLLM: only when some of the prompt was cached
		u.Prompt = &promptDetails{CachedTokens: p.cached}
	}
	return u
}

// body is the non-streamed reply for a finished request.
func (p *plan) body() body {
	b := body{ID: p.id, Created: p.created, Model: p.model, Usage: p.usage()}
	if p.api == completionsAPI {
		b.Object = "text_completion"
		b.Choices = []textChoice{{Text: fillerText(p.words, 0, p.target), FinishReason: &p.finish}}
		return b
	}
	b.Object = "chat.completion"
	msg := map[string]any{"role": "assistant", "content": p.content(p.reasoning, p.target)}
	if p.reasoning > 0 {
		msg[p.reasonField] = fillerText(p.words, 0, p.reasoning)
	}
	b.Choices = []messageChoice{{Message: msg, FinishReason: p.finish}}
	return b
}
