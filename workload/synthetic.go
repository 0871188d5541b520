package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/toksweep/toksweep/client"
)

// Synthetic set sizes: distinct prompts built for a fixed length, and for
// lengths drawn from a distribution (enough draws to show its shape).
// Requests beyond them reuse the text, never the stamp.
const (
	syntheticFixedCount  = 8
	syntheticSpreadCount = 128
)

// minOwnTokens is the smallest estimate of a synthetic prompt's part after
// the shared prefix: the stamp and at least one word of filler.
const minOwnTokens = 3

// synthetic builds the --input-tokens set.
func synthetic(o Options) (*Set, error) {
	n := syntheticFixedCount
	if o.InputStddev > 0 {
		n = syntheticSpreadCount
	}
	shared := ""
	if o.SharedPrefixTokens > 0 {
		shared = fillerText(rand.New(rand.NewPCG(uint64(o.Seed), fillerStream)), wordsFor(o.SharedPrefixTokens))
	}
	slot := newStampSlot(shared)
	lengths := rand.New(rand.NewPCG(uint64(o.Seed), lengthStream))
	prompts := make([]client.Prompt, n)
	for i := range prompts {
		tokens := o.InputTokens
		if o.InputStddev > 0 {
			tokens = int(math.Round(float64(o.InputTokens) + float64(o.InputStddev)*lengths.NormFloat64()))
		}
		tokens = min(max(tokens, o.SharedPrefixTokens+minOwnTokens), 2*o.InputTokens)
		rng := rand.New(rand.NewPCG(uint64(o.Seed), fillerStream+1+uint64(i)))
		prompts[i] = client.Prompt{ID: i, Text: slot.layout(rng, tokens)}
	}
	src := fmt.Sprintf("synthetic: %d prompts of ~%d tokens", n, o.InputTokens)
	if o.InputStddev > 0 {
		src += fmt.Sprintf(" (stddev %d)", o.InputStddev)
	}
	if o.SharedPrefixTokens > 0 {
		src += fmt.Sprintf(", %d shared", o.SharedPrefixTokens)
	}
	return &Set{Prompts: prompts, Source: src, Stamp: slot}, nil
}

// lengthStream is the PCG stream of the synthetic lengths.
const lengthStream = 0x6c656e // "len"

// StampSlot is where each synthetic request carries its stamp: one word,
// right after the shared prefix, made of a tag drawn once per run and the
// request's number ("a3f09c-00000042"). It makes every request's text
// unique from that point on, so no prefix cache can serve one request's
// prefill from another's, even across runs.
type StampSlot struct {
	shared string // the shared prefix, followed by a space when not empty
	tag    string // six hex digits, random per run
}

// stampWidth is the length of a stamp: "xxxxxx-nnnnnnnn".
const stampWidth = 15

func newStampSlot(shared string) *StampSlot {
	if shared != "" {
		shared += " "
	}
	return &StampSlot{shared: shared, tag: fmt.Sprintf("%06x", rand.Uint32()&0xffffff)}
}

// layout builds a prompt whose estimate is the largest ≤ tokens: the shared
// prefix, a blank stamp, and filler.
func (s *StampSlot) layout(rng *rand.Rand, tokens int) string {
	own := wordsFor(tokens) - len(strings.Fields(s.shared)) - 1 // the stamp is one word
	return s.shared + strings.Repeat("0", stampWidth) + " " + fillerText(rng, max(own, 1))
}

// Apply returns p with the stamp of request n written in its slot. It
// leaves a prompt that does not have the slot's layout as it is.
func (s *StampSlot) Apply(p client.Prompt, n uint64) client.Prompt {
	off := len(s.shared)
	if len(p.Text) < off+stampWidth || p.Text[:off] != s.shared {
		return p
	}
	p.Text = fmt.Sprintf("%s%s-%08d%s", s.shared, s.tag, n%1e8, p.Text[off+stampWidth:])
	return p
}

// Prompter returns the prompt of each request, for sweep.Config.Prompt:
// Prompts[seq % len] for ticket seq of a level (so every level sends the
// set in the same order). Synthetic prompts get the stamp of the request
// in their slot: 1, 2, … in the order of the calls, unique across the
// whole run. The function is safe for concurrent use.
func (s *Set) Prompter() func(seq int) client.Prompt {
	prompts, slot := s.Prompts, s.Stamp
	if slot == nil {
		return func(seq int) client.Prompt { return prompts[seq%len(prompts)] }
	}
	var n atomic.Uint64
	return func(seq int) client.Prompt { return slot.Apply(prompts[seq%len(prompts)], n.Add(1)) }
}

// fillerText is exactly words words of plain English-like sentences of 6
// to 15 words, drawn from vocabulary by rng.
func fillerText(rng *rand.Rand, words int) string {
	var b strings.Builder
	b.Grow(words * 7)
	for left := words; left > 0; {
		n := min(6+rng.IntN(10), left)
		for i := range n {
			w := vocabulary[rng.IntN(len(vocabulary))]
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			if i == 0 {
				b.WriteString(strings.ToUpper(w[:1]))
				w = w[1:]
			}
			b.WriteString(w)
		}
		b.WriteByte('.')
		left -= n
	}
	return b.String()
}

// vocabulary is the filler's word list: common English words, one BPE
// token each, plus a fifth of rarer words of two tokens each, so that text
// drawn from it (capitals and full stops included) has about the 1.3
// tokens per word EstimateTokens assumes under real tokenizers too:
// measured 1.30 with GPT-4's cl100k_base and 1.29 with o200k_base
// (tiktoken), against 1.10 for common words alone.
var vocabulary = strings.Fields(`
the of and to in is that for it as was with be by on not he this are or his
from at which but have an they you were her she there been one all we their
has would when if so no will more about out up them some could what into
than then other only time its two may these new after first also any like
our over such years between through where many well much before must people
because those state each under while should last long small great part
against world since during without never again found system number
water river mountain village station library garden bridge market harbor
engine signal voltage current circuit transistor memory register compiler
language process network protocol packet buffer window channel message
history century kingdom empire treaty council archive letter journey season
morning evening winter summer autumn spring weather forest valley island
coast desert meadow orchard harvest bread cheese apple orange copper silver
careful quiet gentle rapid distant ancient modern simple complex useful
measure observe compare describe explain consider follow return change
develop produce require remain include continue provide suggest support
however therefore although meanwhile perhaps usually rarely finally
experiment theory method result evidence pattern structure function value
teacher student doctor farmer sailor painter writer builder engineer
chapter section paragraph sentence reference appendix diagram table figure
granary bellows anvil quill pewter gable rafter cobble bobbin turnip radish
lentil hazel acorn thistle nettle heather lichen pebble shingle estuary
fjord tundra steppe savanna ravine moor copse thicket bramble rowan aspen
birch juniper cypress larch chestnut beech magnolia peony tulip crocus
primrose bluebell caraway nutmeg clove custard scone ladle teapot saucer
goblet tankard flagon
`)

// Filler is words words of the synthetic prompts' filler text, drawn by
// rng: what a trace replay builds its text blocks from (workload/trace).
func Filler(rng *rand.Rand, words int) string { return fillerText(rng, words) }
