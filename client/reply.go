package client

import (
	"encoding/json"
	"strings"
)

// MaxReplyBytes bounds the reply text a request keeps for KeepReply: a
// session's history grows by at most this much per turn, whatever the
// server streams. Text past it is dropped (cut at a UTF-8 boundary).
const MaxReplyBytes = 64 << 10

// replyText collects the content text of a stream for Prompt.KeepReply.
// It decodes only the events the scanner found content in, and only when
// asked: a stream without KeepReply has no replyText and pays nothing.
type replyText struct {
	b    strings.Builder
	full bool
}

// replyChunk is the part of a chunk that carries content text: a chat
// delta's content or a completion's text. Reasoning is not part of the
// reply (a chat history resends the answer, not the thinking).
type replyChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		Text string `json:"text"`
	} `json:"choices"`
}

// add appends the content text of one data event.
func (t *replyText) add(data []byte) {
	if t.full {
		return
	}
	var c replyChunk
	if json.Unmarshal(data, &c) != nil {
		return // a type the scanner tolerated (content not a string): no text
	}
	for _, ch := range c.Choices {
		for _, s := range [2]string{ch.Delta.Content, ch.Text} {
			room := MaxReplyBytes - t.b.Len()
			if len(s) > room {
				s, t.full = string(cutUTF8([]byte(s), room)), true
			}
			t.b.WriteString(s)
		}
	}
}

// String is the text so far; "" for a nil replyText.
func (t *replyText) String() string {
	if t == nil {
		return ""
	}
	return t.b.String()
}
