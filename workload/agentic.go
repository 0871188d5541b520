package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/toksweep/toksweep/client"
)

// MaxSubDepth bounds how deep sub-sessions nest.
//
// An agentic JSONL line is a conversation whose "turns" may be objects as
// well as strings (docs/guide.md, "Multi-turn sessions"):
//
//	{"turns": ["plan", {"user": "run the tests", "wait_ms": 800, "max_tokens": 64,
//	  "subs": [{"turns": ["search A"]}, {"turns": ["search B"]}], "parallel": true}]}
//
// A turn's "wait_ms" is its tool wait, the pause before it is sent (after
// the previous turn's reply and sub-sessions); "subs" are sub-sessions
// that the turn's reply starts, each on the history through that reply,
// run one after another or, with "parallel", all at once. The next turn
// waits for them and opens with their final replies. Sub-sessions are
// conversations of the same shape.
const MaxSubDepth = 4

// NoWait marks a turn without a "wait_ms" in Conversation.Waits.
const NoWait time.Duration = -1

// maxWait bounds "wait_ms": a tool's pause, not a schedule.
const maxWait = time.Hour

// agenticTurn is a turn written as an object.
type agenticTurn struct {
	User      *string           `json:"user"`
	WaitMS    *float64          `json:"wait_ms"`
	MaxTokens *int              `json:"max_tokens"`
	Subs      []json.RawMessage `json:"subs"`
	Parallel  bool              `json:"parallel"`
}

// parseTurns reads a "turns" array of strings and turn objects into c, at
// sub-session depth depth.
func parseTurns(raw json.RawMessage, c *Conversation, depth int) error {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return errors.New(`"turns" must be an array of strings or turn objects`)
	}
	if len(items) == 0 {
		return errors.New(`"turns" is empty`)
	}
	for i, it := range items {
		var t agenticTurn
		if len(it) > 0 && it[0] == '"' {
			var u string
			_ = json.Unmarshal(it, &u)
			t.User = &u
		} else if err := json.Unmarshal(it, &t); err != nil || t.User == nil {
			return fmt.Errorf(`turn %d: want a string or an object with "user"`, i+1)
		}
		if strings.TrimSpace(*t.User) == "" {
			return fmt.Errorf(`turn %d is empty`, i+1)
		}
		if err := c.addTurn(t, i, depth); err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
	}
	return nil
}

// addTurn appends turn i, written as t, to c.
func (c *Conversation) addTurn(t agenticTurn, i, depth int) error {
	c.Users = append(c.Users, *t.User)
	if t.WaitMS != nil {
		ms := *t.WaitMS
		if math.IsNaN(ms) || ms < 0 || ms > float64(maxWait/time.Millisecond) {
			return fmt.Errorf(`"wait_ms" must be from 0 to %d, got %v`, maxWait/time.Millisecond, ms)
		}
		for len(c.Waits) < i {
			c.Waits = append(c.Waits, NoWait)
		}
		c.Waits = append(c.Waits, time.Duration(ms*float64(time.Millisecond)))
	}
	if t.MaxTokens != nil {
		if *t.MaxTokens < 1 || *t.MaxTokens > MaxOutputTokens {
			return fmt.Errorf(`"max_tokens" must be from 1 to %d`, MaxOutputTokens)
		}
		for len(c.MaxTokens) < i {
			c.MaxTokens = append(c.MaxTokens, 0)
		}
		c.MaxTokens = append(c.MaxTokens[:i], *t.MaxTokens)
	}
	if len(t.Subs) == 0 {
		return nil
	}
	if depth >= MaxSubDepth {
		return fmt.Errorf("sub-sessions nested more than %d deep", MaxSubDepth)
	}
	for len(c.Subs) < i {
		c.Subs, c.Parallel = append(c.Subs, nil), append(c.Parallel, false)
	}
	c.Subs, c.Parallel = append(c.Subs, nil), append(c.Parallel, t.Parallel)
	for j, raw := range t.Subs {
		var sub Conversation
		var e struct {
			Turns json.RawMessage `json:"turns"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || !present(e.Turns) {
			return fmt.Errorf(`sub-session %d: want an object with "turns"`, j+1)
		}
		if err := parseTurns(e.Turns, &sub, depth+1); err != nil {
			return fmt.Errorf("sub-session %d: %w", j+1, err)
		}
		c.Subs[i] = append(c.Subs[i], sub)
	}
	return nil
}

// allTurns counts c's turns with its sub-sessions'.
func (c *Conversation) allTurns() int {
	n := len(c.Users)
	for _, subs := range c.Subs {
		for i := range subs {
			n += subs[i].allTurns()
		}
	}
	return n
}

// setID sets the ID of c and of its sub-sessions.
func (c *Conversation) setID(id int) {
	c.ID = id
	for _, subs := range c.Subs {
		for i := range subs {
			subs[i].setID(id)
		}
	}
}

// dropMaxTokens clears c's output targets and its sub-sessions'.
func (c *Conversation) dropMaxTokens() {
	c.MaxTokens = nil
	for _, subs := range c.Subs {
		for i := range subs {
			subs[i].dropMaxTokens()
		}
	}
}

// Agentic reports whether the session has a tool wait or a sub-session.
func (s *Session) Agentic() bool { return len(s.conv.Waits) > 0 || len(s.conv.Subs) > 0 }

// Wait is turn k's tool wait, and false when the dataset gives it none.
func (s *Session) Wait(k int) (time.Duration, bool) {
	if k < len(s.conv.Waits) && s.conv.Waits[k] != NoWait {
		return s.conv.Waits[k], true
	}
	return 0, false
}

// Branch opens the sub-sessions that turn k's reply (replies[k]) starts,
// each on the history through it, and says whether they run at once.
func (s *Session) Branch(k int, replies []string) ([]*Session, bool) {
	if k >= len(s.conv.Subs) || len(s.conv.Subs[k]) == 0 || k >= len(replies) {
		return nil, false
	}
	base := append(s.messages(k, replies), client.Message{Role: "assistant", Content: replies[k]})
	out := make([]*Session, len(s.conv.Subs[k]))
	for i, c := range s.conv.Subs[k] {
		out[i] = &Session{conv: c, turns: len(c.Users), completions: s.completions, base: base}
	}
	return out, s.conv.Parallel[k]
}

// Join keeps the final replies of turn k's sub-sessions: turn k+1's user
// message opens with them, each followed by a blank line.
func (s *Session) Join(k int, finals []string) {
	if s.joined == nil {
		s.joined = map[int][]string{}
	}
	s.joined[k] = finals
}

// HistoryShare is the share of the last prompt's bytes (message contents)
// that the session had sent before: everything but its last user message.
func (s *Session) HistoryShare() float64 { return s.share }

// user is turn i's user message: the final replies of the sub-sessions of
// turn i−1, then the dataset's message.
func (s *Session) user(i int) string {
	f := s.joined[i-1]
	if len(f) == 0 {
		return s.conv.Users[i]
	}
	return strings.Join(f, "\n\n") + "\n\n" + s.conv.Users[i]
}

// contentBytes is the bytes of msgs' contents.
func contentBytes(msgs []client.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
	}
	return n
}
