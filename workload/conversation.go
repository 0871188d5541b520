package workload

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toksweep/toksweep/client"
)

// Conversation is one multi-turn session's script: the user messages, sent
// in order, each after the model's own reply to the one before.
type Conversation struct {
	ID    int      // index in the source (ShareGPT array index, JSONL line index)
	Users []string // the user messages, one per turn
	// MaxTokens is each turn's output target (0: the client's max_tokens);
	// nil when the source sets none.
	MaxTokens []int
	// Waits is each turn's tool wait (NoWait: none given), Subs the
	// sub-sessions each turn's reply starts and Parallel whether they run
	// at once (agentic.go); nil when the source gives none.
	Waits    []time.Duration
	Subs     [][]Conversation
	Parallel []bool
}

// Sessions hands out the conversations of a multi-turn run, one per
// session, and builds each turn's prompt from the history. It is safe for
// concurrent use.
type Sessions struct {
	// Completions flattens the history into one prompt text (FlattenTurns)
	// for the completions API; otherwise a turn is a chat message list.
	Completions bool

	convs []Conversation // replay: session n plays convs[(n-1) % len]
	synth *synthTurns    // synthetic: session n is built from its number
	turns int            // cap on turns per session (--turns, --max-turns); 0: none
	n     atomic.Uint64  // sessions opened so far, run-wide
}

// Session is one open session: a script and how to send it.
type Session struct {
	conv        Conversation
	turns       int
	completions bool
	base        []client.Message // a sub-session's: its parent's history
	joined      map[int][]string // the sub-sessions' final replies, by the turn that started them
	share       float64          // the last prompt's HistoryShare
}

// Open starts the next session. Synthetic sessions are numbered across the
// run and each opens with its own stamp, so no two share a prefix beyond
// --shared-prefix-tokens; replayed sessions cycle through the conversations
// in their seeded order.
func (s *Sessions) Open() *Session {
	n := s.n.Add(1)
	var c Conversation
	if s.synth != nil {
		c = s.synth.conversation(n, s.turns)
	} else {
		c = s.convs[(n-1)%uint64(len(s.convs))]
	}
	t := len(c.Users)
	if s.turns > 0 {
		t = min(t, s.turns)
	}
	return &Session{conv: c, turns: t, completions: s.Completions}
}

// Turns is the number of turns the session plans.
func (s *Session) Turns() int { return s.turns }

// Prompt is turn k's request (0-based): the previous user messages with the
// replies the model streamed (replies[i] answers turn i), then user message
// k. The history is cut to the newest turns that fit in MaxHistoryTokens
// (the oldest turns go first, whole: a user message with its reply). For the completions API the history is flattened by FlattenTurns.
//
// A sub-session's history opens with its parent's (Branch), and a turn
// after sub-sessions opens with their final replies (Join).
func (s *Session) Prompt(k int, replies []string) client.Prompt {
	msgs := s.messages(k, replies)
	if total := contentBytes(msgs); total > 0 {
		s.share = float64(total-len(msgs[len(msgs)-1].Content)) / float64(total)
	}
	p := client.Prompt{ID: s.conv.ID}
	if k < len(s.conv.MaxTokens) {
		p.MaxTokens = s.conv.MaxTokens[k]
	}
	if s.completions {
		p.Text = FlattenTurns(msgs)
	} else {
		p.Messages = msgs
	}
	return p
}

// messages are turn k's: the history, then user message k.
func (s *Session) messages(k int, replies []string) []client.Message {
	from := historyStart(s.conv.Users, replies, k, MaxHistoryTokens*HistoryBytesPerToken-contentBytes(s.base))
	msgs := make([]client.Message, 0, len(s.base)+2*(k-from)+1)
	msgs = append(msgs, s.base...)
	for i := from; i < k; i++ {
		msgs = append(msgs, client.Message{Role: "user", Content: s.user(i)})
		if i < len(replies) {
			msgs = append(msgs, client.Message{Role: "assistant", Content: replies[i]})
		}
	}
	return append(msgs, client.Message{Role: "user", Content: s.user(k)})
}

// FlattenTurns is the completions API's form of a session's history: one
// "User: …" or "Assistant: …" line per message, each followed by a newline,
// and a final "Assistant:" that asks for the next reply:
//
//	User: first message
//	Assistant: first reply
//	User: second message
//	Assistant:
func FlattenTurns(msgs []client.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m.Role == "assistant" {
			b.WriteString("Assistant: ")
		} else {
			b.WriteString("User: ")
		}
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	b.WriteString("Assistant:")
	return b.String()
}

// The default synthetic conversation looks like chat: a long opening, as
// when a user pastes a document and asks about it, then short follow-ups.
// Only the opening's size is a flag (--input-tokens); a prefix cache then
// makes turn 1, whose opening is all new, dearer than the later turns,
// whose history it has seen.
const (
	DefaultOpeningTokens = 1000 // the opening message without --input-tokens
	FollowUpTokens       = 50   // each later user message
)

// synthTurns builds synthetic sessions: the first message of session n is
// a synthetic prompt of --input-tokens (shared prefix, then the stamp of
// session n, then filler), the later ones are filler of FollowUpTokens
// each, stamped too and rotated so that a session's messages differ.
type synthTurns struct {
	first, later *Set
}

func (t *synthTurns) conversation(n uint64, turns int) Conversation {
	f := t.first.Prompts[n%uint64(len(t.first.Prompts))]
	users := []string{t.first.Stamp.Apply(f, n).Text}
	for k := 1; k < turns; k++ {
		p := t.later.Prompts[(n+uint64(k))%uint64(len(t.later.Prompts))]
		users = append(users, t.later.Stamp.Apply(p, n).Text)
	}
	return Conversation{ID: f.ID, Users: users}
}

// MaxHistoryTokens bounds the history a turn sends (the earlier user
// messages and replies), estimated at HistoryBytesPerToken bytes a token;
// beyond it the oldest turns are left out. A server that replies 1 MB a
// turn must not grow a session without bound.
const (
	MaxHistoryTokens     = 1 << 18
	HistoryBytesPerToken = 4
)

// historyStart is the first earlier turn of turn k's history: the newest
// turns whose user messages and replies fit in budget bytes.
func historyStart(users, replies []string, k, budget int) int {
	for i := k - 1; i >= 0; i-- {
		n := len(users[i])
		if i < len(replies) {
			n += len(replies[i])
		}
		if budget -= n; budget < 0 {
			return i + 1
		}
	}
	return 0
}

// MaxTurns bounds --turns and --max-turns, and a dataset conversation's turns: a session's history grows by a
// message and a reply (up to client.MaxReplyBytes) per turn.
const MaxTurns = 1000

// loadSessions builds the Sessions of a multi-turn Options (Turns > 0 or
// MultiTurn), and a prompt set of the first turns, for the pre-flight
// request and the run's records.
func loadSessions(o Options) (*Set, error) {
	ss := &Sessions{turns: max(o.Turns, o.MaxTurns)}
	var set *Set
	if o.Dataset == "" {
		first, err := synthetic(o)
		if err != nil {
			return nil, err
		}
		lo := o
		lo.InputTokens, lo.InputStddev, lo.SharedPrefixTokens = FollowUpTokens, 0, 0
		later, err := synthetic(lo)
		if err != nil {
			return nil, err
		}
		ss.synth = &synthTurns{first: first, later: later}
		set = first
		set.Source = fmt.Sprintf("%s, sessions of %d turns (follow-ups of ~%d tokens)", first.Source, o.Turns, FollowUpTokens)
	} else {
		convs, src, err := loadConversations(o)
		if err != nil {
			return nil, err
		}
		for _, c := range convs {
			if n := c.allTurns(); n > MaxTurns {
				return nil, fmt.Errorf("%s: conversation %d has %d turns, more than %d (toksweep's bound on a session)", o.Dataset, c.ID, n, MaxTurns)
			}
		}
		shuffleConversations(convs, o.Seed)
		ss.convs = convs
		set = &Set{Source: src}
		for _, c := range convs {
			p := client.Prompt{ID: c.ID, Text: c.Users[0]}
			if len(c.MaxTokens) > 0 {
				p.MaxTokens = c.MaxTokens[0]
			}
			set.Prompts = append(set.Prompts, p)
		}
	}
	set.Sessions = ss
	return set, nil
}
