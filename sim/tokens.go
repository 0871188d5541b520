package sim

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/toksweep/toksweep/internal/tokcount"
)

// The simulator does not tokenize, but prefix caching needs a prompt's
// token content, so a prompt is turned into a deterministic sequence of
// token ids of exactly the length the package counts for it (PromptTokens,
// ChatPromptTokens). Word g of the prompt, counting words across all the
// messages of a chat, owns tokens [tokcount.FromWords(g), tokcount.FromWords(g+1)): one or
// two ids derived from the word's text. Each chat message starts with
// tokcount.ChatMessageOverhead ids derived from its role, standing in for the chat
// template's markers. So a prompt that extends another one (the next turn of
// a conversation, a longer document with the same opening) starts with the
// same ids, and a shared prefix of text is a shared prefix of tokens.

// promptText is a request's prompt as text: a chat request's messages
// (roles and contents parallel), or a completions prompt (plain: one
// content, no roles, no template).
type promptText struct {
	roles, contents []string
	plain           bool
	scale           float64 // Config.PromptTokenScale: withReply scales as the prompt was (0: not)
}

// ids is the prompt's token sequence.
func (m *promptText) ids() []uint32 {
	if m.plain {
		return textIDs(m.contents[0])
	}
	return chatMessageIDs(m.roles, m.contents)
}

// words is the number of words in the prompt: its reply's first word is
// word words of the conversation (fillerText).
func (m *promptText) words() int {
	n := 0
	for _, c := range m.contents {
		n += len(strings.Fields(c))
	}
	return n
}

// withReply returns the token ids whose KV a request holds once it has
// generated target tokens: the prompt's ids, then those of the reply as the
// next turn of the conversation sends it back, cut to target tokens. A chat
// reply goes back as an assistant message, whose template tokens come
// first; a completions reply follows the prompt's text (FlattenTurns'
// "…Assistant:" then the reply). The reply re-reads as the very tokens that
// were generated (fillerText), so the next turn finds the whole earlier
// conversation cached but for the last partial block, as vLLM, which caches
// the full blocks of generated tokens too. A reply with reasoning is sent
// back without it and so does not line up at all, and a prompt of token ids
// (m nil) has no text to follow: for those only the prompt's ids are
// returned.
func (m *promptText) withReply(prompt []uint32, target, reasoning int) []uint32 {
	if m == nil || reasoning > 0 {
		return prompt
	}
	reply := fillerText(m.words(), 0, target)
	var all []uint32
	if m.plain {
		all = textIDs(m.contents[0] + " " + reply)
	} else {
		all = chatMessageIDs(append(slices.Clone(m.roles), "assistant"), append(slices.Clone(m.contents), reply))
	}
	all = scaleIDs(all, m.scale)
	return all[:min(len(all), len(prompt)+target)]
}

// The bounds of Config.PromptTokenScale.
const (
	MinPromptTokenScale = 0.05
	MaxPromptTokenScale = 20.0
)

// scaleIDs is ids as a server whose tokenizer counts scale× as many tokens
// would hold them: round(scale × len(ids)) ids (at least 1), id i derived
// from ids[floor(i / scale)] and i. Position i's id depends only on the
// ids before it, so a shared prefix of text is still a shared prefix of
// tokens. A scale of 0 or 1 returns ids as they are.
func scaleIDs(ids []uint32, scale float64) []uint32 {
	if scale == 0 || scale == 1 {
		return ids
	}
	out := make([]uint32, max(1, int(math.Round(scale*float64(len(ids))))))
	for i := range out {
		j := min(int(float64(i)/scale), len(ids)-1)
		out[i] = ids[j] ^ uint32(i)*0x85ebca6b
	}
	return out
}

// chatMessageIDs is the token sequence of a chat conversation; roles and
// contents are parallel. Its length is ChatPromptTokens(contents...).
func chatMessageIDs(roles, contents []string) []uint32 {
	var t idBuilder
	for i, c := range contents {
		for k := range tokcount.ChatMessageOverhead {
			t.ids = append(t.ids, textID("<|"+roles[i]+"|>", k))
		}
		t.words(strings.Fields(c))
	}
	return t.done()
}

// textIDs is the token sequence of a plain prompt. Its length is
// PromptTokens(text).
func textIDs(text string) []uint32 {
	var t idBuilder
	t.words(strings.Fields(text))
	return t.done()
}

// idBuilder appends word tokens, numbering words across calls.
type idBuilder struct {
	ids   []uint32
	nWord int
}

func (t *idBuilder) words(ws []string) {
	for _, w := range ws {
		n := tokcount.FromWords(t.nWord+1) - tokcount.FromWords(t.nWord)
		for k := range n {
			t.ids = append(t.ids, textID(w, k))
		}
		t.nWord++
	}
}

// done returns the ids, at least one (an empty prompt still counts 1 token).
func (t *idBuilder) done() []uint32 {
	if len(t.ids) == 0 {
		return []uint32{textID("", 0)}
	}
	return t.ids
}

// textID is the id of the k-th token of a piece of text.
func textID(s string, k int) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32() + uint32(k)*0x9e3779b9
}

// BlockSize is the number of tokens in one KV-cache block, vLLM's default.
const BlockSize = 16

// rootBlockHash is the parent of a sequence's first block.
const rootBlockHash = 0x7a2c_5e1d_b00c_4a11

// blockHashes returns the chained hashes of the full blocks of ids: block i's
// hash covers its parent's hash and its own BlockSize ids, as vLLM's block
// hashes do, so equal hashes mean equal prefixes up to the end of the block.
// A last partial block has no hash: it is never cached.
func blockHashes(ids []uint32) []uint64 {
	out := make([]uint64, 0, len(ids)/BlockSize)
	parent := uint64(rootBlockHash)
	var buf [8 + 4*BlockSize]byte
	for i := 0; i+BlockSize <= len(ids); i += BlockSize {
		binary.LittleEndian.PutUint64(buf[:8], parent)
		for k, id := range ids[i : i+BlockSize] {
			binary.LittleEndian.PutUint32(buf[8+4*k:], id)
		}
		h := fnv.New64a()
		h.Write(buf[:])
		parent = h.Sum64()
		out = append(out, parent)
	}
	return out
}
