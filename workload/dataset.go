package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/client"
)

// jsonlEntry is one line of a JSONL dataset. Members are kept raw so that
// a wrong type gets a message in the dataset's terms, not encoding/json's.
type jsonlEntry struct {
	Prompt    json.RawMessage `json:"prompt"`
	Messages  json.RawMessage `json:"messages"`
	MaxTokens json.RawMessage `json:"max_tokens"`
	Turns     json.RawMessage `json:"turns"` // a conversation line: read with --multi-turn
}

// ReadJSONL reads a JSONL dataset: one request per line, {"prompt": "..."}
// or {"messages": [...]}, with an optional positive integer "max_tokens".
// Blank lines are skipped and other members ignored. A prompt's ID is its
// 0-based line index. name is used in errors, which read "NAME:LINE: why".
// A line may hold MaxPromptBytes, the file MaxPrompts requests.
func ReadJSONL(r io.Reader, name string) ([]client.Prompt, error) {
	return readJSONL(r, name, "request", func(line []byte, id int) (client.Prompt, error) {
		p, err := parseJSONLLine(line)
		p.ID = id
		return p, err
	})
}

// readJSONL reads one T per non-blank line of r (a UTF-8 BOM ignored),
// within toksweep's bounds on a dataset: at most MaxPrompts lines of
// MaxPromptBytes each. Errors read "NAME:LINE: why"; parse gets the line
// and its 0-based index. what names one line's item ("request").
func readJSONL[T any](r io.Reader, name, what string, parse func(line []byte, id int) (T, error)) ([]T, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxPromptBytes)
	var out []T
	lineNo := 1
	for ; sc.Scan(); lineNo++ {
		t := bytes.TrimSpace(bytes.TrimPrefix(sc.Bytes(), []byte("\xef\xbb\xbf")))
		if len(t) == 0 {
			continue
		}
		if len(out) == MaxPrompts {
			return nil, fmt.Errorf("%s:%d: more than %d %ss, toksweep's bound on a dataset", name, lineNo, MaxPrompts, what)
		}
		v, err := parse(t, lineNo-1)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		out = append(out, v)
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, fmt.Errorf("%s:%d: line longer than %d MiB, toksweep's bound on one %s", name, lineNo, MaxPromptBytes>>20, what)
	case err != nil:
		return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
	}
	return out, nil
}

func parseJSONLLine(line []byte) (client.Prompt, error) {
	var p client.Prompt
	if line[0] != '{' {
		return p, errors.New(`want a JSON object such as {"prompt": "..."} or {"messages": [...]}`)
	}
	var e jsonlEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return p, fmt.Errorf("invalid JSON: %s", jsonReason(err))
	}
	hasPrompt, hasMessages := present(e.Prompt), present(e.Messages)
	switch {
	case hasPrompt && hasMessages:
		return p, errors.New(`"prompt" and "messages" are exclusive`)
	case hasPrompt:
		if err := json.Unmarshal(e.Prompt, &p.Text); err != nil {
			return p, errors.New(`"prompt" must be a string`)
		}
		if strings.TrimSpace(p.Text) == "" {
			return p, errors.New(`"prompt" is empty`)
		}
	case hasMessages:
		msgs, err := parseMessages(e.Messages)
		if err != nil {
			return p, err
		}
		p.Messages = msgs
	case present(e.Turns):
		return p, errors.New(`a line of "turns" is a conversation: replay it with --multi-turn (a line of one request wants "prompt" or "messages")`)
	default:
		return p, errors.New(`want "prompt" or "messages"`)
	}
	if present(e.MaxTokens) {
		n, err := strconv.Atoi(string(e.MaxTokens))
		switch {
		case err == nil && n > MaxOutputTokens, errors.Is(err, strconv.ErrRange) && e.MaxTokens[0] != '-':
			return p, fmt.Errorf(`"max_tokens" %.40s is over %d, toksweep's bound`, e.MaxTokens, MaxOutputTokens)
		case err != nil || n < 1:
			return p, fmt.Errorf(`"max_tokens" must be a positive integer, got %.40s`, e.MaxTokens)
		}
		p.MaxTokens = n
	}
	return p, nil
}

// present reports whether a raw member was given and is not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// wireMessage is a chat message as datasets write it: content is a string
// or an array of {"type": "text", "text": ...} parts.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

func parseMessages(raw json.RawMessage) ([]client.Message, error) {
	var wire []wireMessage
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, errors.New(`"messages" must be an array of {"role": ..., "content": ...} objects`)
	}
	if len(wire) == 0 {
		return nil, errors.New(`"messages" is empty`)
	}
	msgs := make([]client.Message, len(wire))
	for i, m := range wire {
		if strings.TrimSpace(m.Role) == "" {
			return nil, fmt.Errorf(`message %d has no "role"`, i)
		}
		content, err := messageText(m.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		msgs[i] = client.Message{Role: m.Role, Content: content}
	}
	return msgs, nil
}

// messageText returns a message's content as text: the string itself, or
// the text parts of a content array joined by newlines.
func messageText(raw json.RawMessage) (string, error) {
	if !present(raw) {
		return "", errors.New(`no "content"`)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New(`"content" must be a string or an array of text parts`)
	}
	texts := make([]string, 0, len(parts))
	for _, pt := range parts {
		if pt.Type != "text" {
			return "", fmt.Errorf(`content part of type %q: only text parts are supported`, pt.Type)
		}
		texts = append(texts, pt.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// jsonReason is encoding/json's error without its "json: " prefix.
func jsonReason(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }

// shareGPTConversation is one element of a ShareGPT array.
type shareGPTConversation struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// The "from" values of ShareGPT turns.
var (
	humanRoles = map[string]bool{"human": true, "user": true}
	modelRoles = map[string]bool{"gpt": true, "chatgpt": true, "assistant": true, "bard": true}
)

// ReadShareGPT reads a ShareGPT file: a JSON array of conversations. The
// first human turn of each is a prompt, and the model turn right after it
// sets the request's max_tokens to its EstimateTokens count. A prompt's ID
// is the conversation's 0-based index in the array. Conversations without a
// non-empty human turn followed by a non-empty model turn are skipped and
// counted. name is used in errors, which read "NAME:LINE: why". The file
// is decoded as it is read, one conversation at a time (a file that is not
// an array fails at its first byte), and may hold MaxPrompts requests.
func ReadShareGPT(r io.Reader, name string) (prompts []client.Prompt, skipped int, err error) {
	err = decodeShareGPT(r, name, func(i int, c shareGPTConversation) (bool, error) {
		p, ok := shareGPTPrompt(c)
		if !ok {
			skipped++
			return false, nil
		}
		p.ID = i
		prompts = append(prompts, p)
		return true, nil
	})
	if err != nil {
		return nil, 0, err
	}
	return prompts, skipped, nil
}

// decodeShareGPT decodes a ShareGPT array one conversation at a time and
// hands each to use, with its index; use says whether it kept it (kept
// conversations count towards MaxPrompts). Errors read "NAME:LINE: why".
func decodeShareGPT(r io.Reader, name string, use func(i int, c shareGPTConversation) (bool, error)) error {
	br := bufio.NewReader(r)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
	}
	lr := &lineReader{r: br}
	dec := json.NewDecoder(lr)
	fail := func(off int64, format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, lr.lineAt(off), fmt.Sprintf(format, args...))
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fail(dec.InputOffset(), "want a JSON array of conversations (the ShareGPT layout)")
	}
	kept := 0
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		lr.forget(start)
		var c shareGPTConversation
		if err := dec.Decode(&c); err != nil {
			return fail(errorOffset(err, start), "conversation %d: %s", i, jsonReason(err))
		}
		ok, err := use(i, c)
		switch {
		case err != nil:
			return fail(start, "conversation %d: %v", i, err)
		case ok && kept == MaxPrompts:
			return fail(start, "more than %d requests, toksweep's bound on a dataset", MaxPrompts)
		case ok:
			kept++
		}
	}
	if _, err := dec.Token(); err != nil {
		return fail(dec.InputOffset(), "the array of conversations is not closed: %s", jsonReason(err))
	}
	return nil
}

// shareGPTPrompt takes the first human turn and the model turn after it.
func shareGPTPrompt(c shareGPTConversation) (client.Prompt, bool) {
	turns := c.Conversations
	for i := 0; i+1 < len(turns); i++ {
		if !humanRoles[strings.ToLower(turns[i].From)] {
			continue
		}
		prompt, answer := turns[i].Value, turns[i+1].Value
		if !modelRoles[strings.ToLower(turns[i+1].From)] || strings.TrimSpace(prompt) == "" || EstimateTokens(answer) == 0 {
			return client.Prompt{}, false
		}
		return client.Prompt{Text: prompt, MaxTokens: EstimateTokens(answer)}, true
	}
	return client.Prompt{}, false
}

// errorOffset is the input offset a Decoder.Decode error points at, for a
// value that starts at start. A Decoder's syntax errors count from the
// start of the input, its type errors from the start of the value.
func errorOffset(err error, start int64) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.As(err, &te):
		return start + te.Offset
	}
	return start
}
