package workload

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// loadConversations reads --dataset as whole conversations (--multi-turn).
func loadConversations(o Options) ([]Conversation, string, error) {
	format := o.Format
	if format == "" {
		if !strings.EqualFold(filepath.Ext(o.Dataset), ".jsonl") {
			return nil, "", fmt.Errorf("cannot tell the format of --dataset %s: give --dataset-format %s or %s", o.Dataset, JSONL, ShareGPT)
		}
		format = JSONL
	}
	f, err := os.Open(o.Dataset)
	if err != nil {
		return nil, "", fmt.Errorf("cannot read --dataset: %w", err)
	}
	defer f.Close()
	r := &boundedReader{r: f, n: MaxDatasetBytes}
	var (
		convs   []Conversation
		skipped int
	)
	switch format {
	case JSONL:
		convs, err = ReadJSONLConversations(r, o.Dataset)
	case ShareGPT:
		convs, skipped, err = ReadShareGPTConversations(r, o.Dataset)
	case OTel:
		convs, skipped, err = ReadOTelConversations(r, o.Dataset)
	default:
		return nil, "", fmt.Errorf("invalid --dataset-format %q: want %s, %s or %s", format, JSONL, ShareGPT, OTel)
	}
	switch {
	case r.over:
		return nil, "", fmt.Errorf("--dataset %q is %v", o.Dataset, errTooLarge)
	case err != nil:
		return nil, "", err
	case len(convs) == 0:
		return nil, "", fmt.Errorf("--dataset %s holds no usable conversation", o.Dataset)
	}
	if o.IgnoreSourceMaxTokens {
		for i := range convs {
			convs[i].dropMaxTokens()
		}
	}
	src := fmt.Sprintf("%s %s: %d conversations", format, o.Dataset, len(convs))
	if skipped > 0 {
		src += fmt.Sprintf(" (%d skipped)", skipped)
	}
	if o.MaxTurns > 0 {
		src += fmt.Sprintf(", at most %d turns", o.MaxTurns)
	}
	return convs, src, nil
}

// ReadJSONLConversations reads a multi-turn JSONL dataset: one conversation
// per line, {"turns": ["first user message", "second", ...]}, with an
// optional positive integer "max_tokens" for every turn. Blank lines are
// skipped and other members ignored. A conversation's ID is its 0-based
// line index; errors read "NAME:LINE: why".
func ReadJSONLConversations(r io.Reader, name string) ([]Conversation, error) {
	return readJSONL(r, name, "conversation", func(line []byte, id int) (Conversation, error) {
		c, err := parseConversationLine(line)
		c.setID(id)
		return c, err
	})
}

func parseConversationLine(line []byte) (Conversation, error) {
	var c Conversation
	var e struct {
		Turns     json.RawMessage `json:"turns"`
		MaxTokens json.RawMessage `json:"max_tokens"`
	}
	if line[0] != '{' {
		return c, errors.New(`want a JSON object such as {"turns": ["...", "..."]}`)
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return c, fmt.Errorf("invalid JSON: %s", jsonReason(err))
	}
	if !present(e.Turns) {
		return c, errors.New(`want "turns", a list of user messages (--multi-turn)`)
	}
	if err := parseTurns(e.Turns, &c, 0); err != nil {
		return c, err
	}
	if present(e.MaxTokens) {
		n, err := strconv.Atoi(string(e.MaxTokens))
		if err != nil || n < 1 || n > MaxOutputTokens {
			return c, fmt.Errorf(`"max_tokens" must be an integer from 1 to %d, got %.40s`, MaxOutputTokens, e.MaxTokens)
		}
		c.MaxTokens = append(c.MaxTokens, make([]int, len(c.Users)-len(c.MaxTokens))...)
		for i := range c.MaxTokens {
			c.MaxTokens[i] = cmp.Or(c.MaxTokens[i], n) // a turn's own first
		}
	}
	return c, nil
}

// ReadShareGPTConversations reads a ShareGPT file as whole conversations
// (--multi-turn): every human turn followed by a model turn is one turn of
// the session, in order, and the model turn's EstimateTokens count is its
// max_tokens (the recorded answer sets the length; the model writes its own
// reply). It stops at the first human turn without a model reply after it.
// Conversations without one such pair are skipped and counted.
func ReadShareGPTConversations(r io.Reader, name string) (convs []Conversation, skipped int, err error) {
	err = decodeShareGPT(r, name, func(i int, sc shareGPTConversation) (bool, error) {
		c := shareGPTConversationTurns(sc)
		if len(c.Users) == 0 {
			skipped++
			return false, nil
		}
		c.ID = i
		convs = append(convs, c)
		return true, nil
	})
	if err != nil {
		return nil, 0, err
	}
	return convs, skipped, nil
}

// shareGPTConversationTurns pairs each human turn with the model turn
// right after it, from the first human turn on.
func shareGPTConversationTurns(sc shareGPTConversation) Conversation {
	var c Conversation
	turns := sc.Conversations
	i := 0
	for i < len(turns) && !humanRoles[strings.ToLower(turns[i].From)] {
		i++
	}
	for ; i+1 < len(turns); i += 2 {
		user, answer := turns[i], turns[i+1]
		if !humanRoles[strings.ToLower(user.From)] || !modelRoles[strings.ToLower(answer.From)] ||
			strings.TrimSpace(user.Value) == "" || EstimateTokens(answer.Value) == 0 {
			break
		}
		c.Users = append(c.Users, user.Value)
		c.MaxTokens = append(c.MaxTokens, EstimateTokens(answer.Value))
	}
	return c
}

// shuffleConversations permutes cs in place by seed, as shuffle does prompts.
func shuffleConversations(cs []Conversation, seed int64) {
	rng := rand.New(rand.NewPCG(uint64(seed), orderStream))
	rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
}
