package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jsonLine is one line of a Mooncake or Bailian trace; pointers tell a
// missing member from a zero.
type jsonLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
	ChatID       *int64   `json:"chat_id"`
	ParentChatID *int64   `json:"parent_chat_id"`
	Turn         int      `json:"turn"`
}

// readJSONL reads a Mooncake (timestamps in ms) or Bailian (seconds,
// sessions) trace.
func readJSONL(r io.Reader, t *Trace) error {
	ids := map[int64]bool{} // Bailian chat ids seen so far
	return lines(r, t, func(l []byte, no int) error {
		if l[0] != '{' {
			return errors.New("want a JSON object per line")
		}
		var j jsonLine
		if err := json.Unmarshal(l, &j); err != nil {
			return fmt.Errorf("invalid JSON: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
		for name, missing := range map[string]bool{"timestamp": j.Timestamp == nil, "input_length": j.InputLength == nil, "output_length": j.OutputLength == nil} {
			if missing {
				return fmt.Errorf("no %q", name)
			}
		}
		r := Request{Line: no, Input: *j.InputLength, Output: *j.OutputLength, Hashes: j.HashIDs, ID: int64(len(t.Requests)), Parent: NoParent}
		var err error
		if t.Format == Mooncake {
			r.At, err = seconds(*j.Timestamp/1000, "timestamp (ms)")
		} else {
			r.At, err = seconds(*j.Timestamp, "timestamp (s)")
		}
		if err != nil {
			return err
		}
		if t.Format == Bailian {
			if j.ChatID == nil {
				return errors.New(`no "chat_id"`)
			}
			if *j.ChatID < 0 || *j.ChatID > MaxHashID {
				return fmt.Errorf("chat_id %d: want 0 to 2^53-1", *j.ChatID)
			}
			if ids[*j.ChatID] {
				return fmt.Errorf("chat_id %d is not unique", *j.ChatID)
			}
			if j.Turn < 0 || j.Turn > maxTurn {
				return fmt.Errorf("turn %d: want 0 to %d", j.Turn, maxTurn)
			}
			r.ID, r.Turn = *j.ChatID, j.Turn
			if j.ParentChatID != nil && *j.ParentChatID >= 0 {
				r.Parent = *j.ParentChatID
			}
			if err := t.add(r); err != nil || len(t.Requests) == 0 || t.Requests[len(t.Requests)-1].Line != no {
				return err
			}
			ids[r.ID] = true
			return nil
		}
		return t.add(r)
	})
}

// maxTurn bounds a Bailian turn number.
const maxTurn = 1 << 20
