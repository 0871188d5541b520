package trace

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/workload"
)

// Token ids of a --prompt-token-ids prompt are drawn in [MinTokenID,
// Vocab): the low ids of most vocabularies are bytes and special tokens.
// DefaultVocab is below every common model's vocabulary (Llama 2 and
// Mistral have 32,000 ids; Llama 3 128,256; Qwen 151,936).
const (
	MinTokenID   = 1000
	DefaultVocab = 32000
	MaxVocab     = 1 << 24
)

// DefaultTokensPerWord is the filler text's tokens per word when the
// server's was not measured (workload.EstimateTokens' 1.3).
const DefaultTokensPerWord = 1.3

// Prompts builds a trace's prompts from its blocks, without a tokenizer.
// Block i of a request is hash id Hashes[i]: the same id always gives the
// same content (token ids, or words of filler text), so the trace's shared
// prefixes are shared prefixes on the wire; the tokens past the last hash
// id, and every token of a format without hash ids, are unique to the
// request. All of it is drawn from Salt, which the replay sets per level,
// so that no level (and no run) finds another's blocks in a prefix cache.
type Prompts struct {
	BlockSize int
	Salt      uint64
	// TokenIDs builds each prompt as Input token ids (the completions
	// API's list of ints), ids in [MinTokenID, Vocab).
	TokenIDs bool
	Vocab    int // 0 means DefaultVocab
	// TokensPerWord scales a text prompt: Input tokens are written as
	// about Input / TokensPerWord words (0 means DefaultTokensPerWord).
	TokensPerWord float64
	// MessageTokens is what the chat template adds per message, in tokens
	// (measured with TokensPerWord); a chat prompt's words are scaled to
	// Input less the template's tokens.
	MessageTokens float64
	// MinTokens asks the server to generate the full output length
	// (min_tokens = output_length), for servers that accept it.
	MinTokens bool
}

// Prompt is request r's prompt: its Input tokens, max_tokens its Output.
func (b *Prompts) Prompt(r *Request) client.Prompt {
	p := client.Prompt{ID: r.Line - 1, MaxTokens: r.Output}
	if b.MinTokens {
		p.MinTokens = r.Output
	}
	if b.TokenIDs {
		p.TokenIDs = b.ids(r, 0, r.Input)
	} else {
		p.Text = b.text(r, 0, max(r.Input-b.overhead(1), 1))
	}
	return p
}

// overhead is the template tokens of n chat messages.
func (b *Prompts) overhead(n int) int { return int(math.Round(float64(n) * b.MessageTokens)) }

// FollowUp is turn r's prompt in a session whose previous turn was parent
// (its prompt) and streamed reply (replyTokens of output): the parent's
// prompt, the reply and a new message holding the rest of r's Input
// (at least one token), built from r's blocks past the history. A chat
// prompt carries the history as messages. A token-id prompt cannot carry
// the reply's text: it carries replyTokens ids unique to the parent in its
// place, so its length is still the history's.
func (b *Prompts) FollowUp(r *Request, parent client.Prompt, reply string, replyTokens int) client.Prompt {
	p := client.Prompt{ID: r.Line - 1, MaxTokens: r.Output}
	if b.MinTokens {
		p.MinTokens = r.Output
	}
	if b.TokenIDs {
		hist := len(parent.TokenIDs) + replyTokens
		p.TokenIDs = append(append([]int(nil), parent.TokenIDs...), b.unique(uint64(r.Parent)^replySalt, replyTokens)...)
		p.TokenIDs = append(p.TokenIDs, b.ids(r, min(hist, r.Input-1), r.Input)...)
		return p
	}
	msgs := parent.Messages
	if len(msgs) == 0 {
		msgs = []client.Message{{Role: "user", Content: parent.Text}}
	}
	histTokens := int(math.Round(float64(words(msgs)+len(strings.Fields(reply)))*b.tpw())) + b.overhead(len(msgs)+2)
	p.Messages = append(append([]client.Message(nil), msgs...),
		client.Message{Role: "assistant", Content: reply},
		client.Message{Role: "user", Content: b.text(r, min(histTokens, r.Input-1), r.Input)})
	return p
}

// replySalt marks the stand-in ids of a parent's reply.
const replySalt = 0x5eed_0f_5e55_1011

func words(msgs []client.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(strings.Fields(m.Content))
	}
	return n
}

func (b *Prompts) tpw() float64 {
	if b.TokensPerWord > 0 {
		return b.TokensPerWord
	}
	return DefaultTokensPerWord
}

// span calls each with every block piece of tokens [from, to) of r: the
// block's key (its hash id, or a key unique to r past the hash ids), the
// block's first token and the piece's token range within the block.
func (b *Prompts) span(r *Request, from, to int, each func(key uint64, start, lo, hi int)) {
	bs := b.BlockSize
	if bs <= 0 {
		bs = max(to, 1)
	}
	for start := from / bs * bs; start < to; start += bs {
		i := start / bs
		key := uint64(r.Line)<<20 ^ uint64(i) ^ uniqueSalt
		if i < len(r.Hashes) {
			key = uint64(r.Hashes[i])
		}
		each(key, start, max(from, start)-start, min(to, start+bs)-start)
	}
}

// uniqueSalt marks the keys of the blocks unique to one request.
const uniqueSalt = 0x7f3a_9c11_0000_0000

// ids is tokens [from, to) of r as token ids.
func (b *Prompts) ids(r *Request, from, to int) []int {
	vocab := b.Vocab
	if vocab <= MinTokenID {
		vocab = DefaultVocab
	}
	out := make([]int, 0, to-from)
	b.span(r, from, to, func(key uint64, _, lo, hi int) {
		for k := lo; k < hi; k++ {
			out = append(out, MinTokenID+int(mix(b.Salt, key, uint64(k))%uint64(vocab-MinTokenID)))
		}
	})
	return out
}

// unique is n ids drawn from key alone.
func (b *Prompts) unique(key uint64, n int) []int {
	vocab := b.Vocab
	if vocab <= MinTokenID {
		vocab = DefaultVocab
	}
	out := make([]int, n)
	for k := range out {
		out[k] = MinTokenID + int(mix(b.Salt, key, uint64(k))%uint64(vocab-MinTokenID))
	}
	return out
}

// text is tokens [from, to) of r as filler words: block pieces of words
// drawn from the block's key, the word count of token range [a, b) being
// round(b/tpw) - round(a/tpw), so that it depends on the position only and
// a block at the same place always has the same words.
func (b *Prompts) text(r *Request, from, to int) string {
	tpw := b.tpw()
	wordsTo := func(tok int) int { return int(math.Round(float64(tok) / tpw)) }
	var parts []string
	b.span(r, from, to, func(key uint64, start, lo, hi int) {
		skip, n := wordsTo(start+lo)-wordsTo(start), wordsTo(start+hi)-wordsTo(start+lo)
		if n <= 0 {
			return
		}
		rng := rand.New(rand.NewPCG(b.Salt, key))
		all := strings.Fields(workload.Filler(rng, skip+n))
		parts = append(parts, strings.Join(all[skip:], " "))
	})
	if len(parts) == 0 {
		return "Hello."
	}
	return strings.Join(parts, " ")
}

// mix is a 64-bit hash of three words (splitmix64's finaliser).
func mix(a, b, c uint64) uint64 {
	x := a ^ b*0x9e3779b97f4a7c15 ^ c*0xc2b2ae3d27d4eb4f
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
