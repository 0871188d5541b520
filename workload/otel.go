package workload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
)

// OTel is the --dataset-format of OpenTelemetry traces of LLM calls
// (--multi-turn only), as inference-perf's otel_trace_replay reads them:
// each trace a JSON object {"spans": [...]}, one session; a file holds one
// or several, one after another (JSONL too).
const OTel = "otel"

// otelSpan is a span as the GenAI semantic conventions write it; only
// spans with gen_ai.input.messages are LLM calls.
type otelSpan struct {
	Start      string                     `json:"start_time"`
	End        string                     `json:"end_time"`
	Attributes map[string]json.RawMessage `json:"attributes"`
}

// llmCall is an LLM span, read.
type llmCall struct {
	start, end time.Time
	in         []client.Message
	out        string // the recorded reply's text
	outTokens  int    // gen_ai.usage.completion_tokens (or output_tokens); 0 if none

	parent      int // index of the call whose history it extends, or ended last before it; -1: none
	prefix      int // how many of in are the parent's history (its in and out)
	kids        []int
	next        int // the child that is the chain's next turn; -1: none
	subtreeEnds time.Time
	text        string // its turn's user message (newText)
}

// ReadOTelConversations reads OpenTelemetry traces as sessions, one per
// trace. Its LLM spans are sorted by start time; a span's parent is the
// earlier, ended span whose messages and reply open its own messages the
// longest, else (a context of its own) the span that ended last before it
// started. Of a span's children, the last to start is its next turn, the
// others sub-sessions its reply starts, run at once when any two of them
// overlapped. A turn's user message is its messages beyond the parent's
// history, replies left out (the live ones stand for them); its
// max_tokens is the recorded completion_tokens; its wait_ms is its start
// less the end of its parent and of the parent's sub-sessions. A span
// with no parent other than the first is left out and counted, as is a
// trace without LLM spans.
func ReadOTelConversations(r io.Reader, name string) (convs []Conversation, skipped int, err error) {
	dec := json.NewDecoder(r)
	for i := 0; ; i++ {
		var tr struct {
			Spans []otelSpan `json:"spans"`
		}
		if err := dec.Decode(&tr); err == io.EOF {
			break
		} else if err != nil {
			return nil, 0, fmt.Errorf("%s: trace %d: invalid JSON: %s", name, i+1, jsonReason(err))
		}
		calls, err := otelCalls(tr.Spans)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: trace %d: %w", name, i+1, err)
		}
		if len(calls) == 0 {
			skipped++
			continue
		}
		c, left := otelConversation(calls)
		c.setID(i)
		convs, skipped = append(convs, c), skipped+left
	}
	return convs, skipped, nil
}

// otelCalls reads the LLM spans, sorted by start.
func otelCalls(spans []otelSpan) ([]llmCall, error) {
	var calls []llmCall
	for j, s := range spans {
		raw, ok := s.Attributes["gen_ai.input.messages"]
		if !ok {
			continue
		}
		c, err := otelCall(s, raw)
		if err != nil {
			return nil, fmt.Errorf("span %d: %w", j+1, err)
		}
		calls = append(calls, c)
	}
	slices.SortStableFunc(calls, func(a, b llmCall) int { return a.start.Compare(b.start) })
	return calls, nil
}

func otelCall(s otelSpan, in json.RawMessage) (llmCall, error) {
	c := llmCall{parent: -1, next: -1}
	var err error
	if c.start, err = time.Parse(time.RFC3339Nano, s.Start); err != nil {
		return c, fmt.Errorf(`"start_time" %q: want RFC 3339`, s.Start)
	}
	if c.end, err = time.Parse(time.RFC3339Nano, s.End); err != nil || c.end.Before(c.start) {
		return c, fmt.Errorf(`"end_time" %q: want RFC 3339, not before start_time`, s.End)
	}
	if c.in, err = otelMessages(in); err != nil || len(c.in) == 0 {
		return c, fmt.Errorf("gen_ai.input.messages: want a non-empty list of messages (%v)", err)
	}
	if raw, ok := s.Attributes["gen_ai.output.messages"]; ok {
		out, err := otelMessages(raw)
		if err != nil {
			return c, fmt.Errorf("gen_ai.output.messages: %w", err)
		}
		for _, m := range out {
			c.out += m.Content
		}
	}
	for _, k := range []string{"gen_ai.usage.completion_tokens", "gen_ai.usage.output_tokens"} {
		if n, err := strconv.Atoi(string(s.Attributes[k])); err == nil && n > 0 && c.outTokens == 0 {
			c.outTokens = min(n, MaxOutputTokens)
		}
	}
	return c, nil
}

// otelMessages reads a messages attribute: a list, or a string of one.
func otelMessages(raw json.RawMessage) ([]client.Message, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, errors.New("not a list")
	}
	var wire []wireMessage
	if err := json.Unmarshal(raw, &wire); err != nil {
		return nil, errors.New("not a list of messages")
	}
	msgs := make([]client.Message, 0, len(wire))
	for _, m := range wire {
		text, err := messageText(m.Content)
		if err != nil && present(m.Content) {
			return nil, err
		}
		msgs = append(msgs, client.Message{Role: m.Role, Content: text})
	}
	return msgs, nil
}

// otelConversation links calls (sorted by start) into a conversation from
// the first, and counts the calls left out.
func otelConversation(calls []llmCall) (Conversation, int) {
	for i := 1; i < len(calls); i++ {
		link(calls, i)
	}
	for i := range calls {
		if n := len(calls[i].kids); n > 0 {
			calls[i].next = calls[i].kids[n-1]
		}
	}
	ends(calls, 0)
	replies := map[string]bool{}
	for i := range calls {
		replies[calls[i].out] = true
	}
	for i := range calls {
		calls[i].text = newText(&calls[i], replies)
	}
	c := chain(calls, 0, calls[0].start, 0)
	return c, len(calls) - c.allTurns()
}

// link finds call i's parent: the longest history match among the calls
// ended before it, else the one ended last.
func link(calls []llmCall, i int) {
	me := &calls[i]
	best, bestLen, last := -1, 0, -1
	for j := range i {
		p := &calls[j]
		if p.end.After(me.start) {
			continue
		}
		if last < 0 || p.end.After(calls[last].end) {
			last = j
		}
		hist := append(slices.Clip(p.in), client.Message{Role: "assistant", Content: p.out})
		if len(hist) <= len(me.in) && slices.Equal(hist, me.in[:len(hist)]) && len(hist) > bestLen {
			best, bestLen = j, len(hist)
		}
	}
	if best < 0 {
		best = last
	}
	if best >= 0 {
		me.parent, me.prefix = best, bestLen
		calls[best].kids = append(calls[best].kids, i)
	}
}

// ends sets the end of each call's subtree, from call i.
func ends(calls []llmCall, i int) time.Time {
	e := calls[i].end
	for _, k := range calls[i].kids {
		if ke := ends(calls, k); ke.After(e) {
			e = ke
		}
	}
	calls[i].subtreeEnds = e
	return e
}

// chain is the conversation of call i and its next turns, at sub-session
// depth depth, its first turn due at from: each turn's other children are
// its sub-sessions (beyond MaxSubDepth, left out), and each turn's wait
// runs from what the replay waits for, its parent's end and sub-sessions.
func chain(calls []llmCall, i int, from time.Time, depth int) Conversation {
	var c Conversation
	for turn := 0; i >= 0; turn++ {
		cl := &calls[i]
		user := cl.text
		ms := max(float64(cl.start.Sub(from))/float64(time.Millisecond), 0)
		t := agenticTurn{User: &user, WaitMS: &ms}
		if cl.outTokens > 0 {
			t.MaxTokens = &cl.outTokens
		}
		_ = c.addTurn(t, turn, 0) // its checks hold: the values are in range by construction
		var kids []int
		for _, k := range cl.kids {
			if k != cl.next {
				kids = append(kids, k)
			}
		}
		par := false
		for j, k := range kids {
			for _, o := range kids[j+1:] {
				par = par || calls[o].start.Before(calls[k].subtreeEnds)
			}
		}
		from = cl.end
		if len(kids) > 0 && depth < MaxSubDepth {
			var subs []Conversation
			for _, k := range kids {
				at := cl.end
				if !par {
					at = from
				}
				subs = append(subs, chain(calls, k, at, depth+1))
				from = maxTime(from, calls[k].subtreeEnds)
			}
			for len(c.Subs) < turn {
				c.Subs, c.Parallel = append(c.Subs, nil), append(c.Parallel, false)
			}
			c.Subs, c.Parallel = append(c.Subs, subs), append(c.Parallel, par)
		}
		i = cl.next
	}
	return c
}

// newText is a call's messages beyond its parent's history, one per
// paragraph, but for replies: assistant messages and any message that is
// a recorded reply (a sub-agent's result), which the live ones stand for.
func newText(c *llmCall, replies map[string]bool) string {
	var parts []string
	for _, m := range c.in[c.prefix:] {
		if m.Role != "assistant" && !replies[m.Content] && strings.TrimSpace(m.Content) != "" {
			parts = append(parts, m.Content)
		}
	}
	if len(parts) == 0 {
		return "(continue)"
	}
	return strings.Join(parts, "\n\n")
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
