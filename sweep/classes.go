package sweep

import (
	"math"
	"math/rand/v2"

	"github.com/toksweep/toksweep/client"
)

// MaxClasses bounds the traffic classes of a run, so that every
// per-class table and the live metrics' class label stay small.
const MaxClasses = 16

// Classes are a run's traffic classes (sweep --class): each request is
// drawn into one by its share, with the run's seed, and sent with the
// class's client.Variant (index i+1 for class i). The draw of a request
// depends on the seed and on its draw key alone (a session's number, so
// that its turns keep one class; else its ticket), never on timing, so a
// run is drawn the same at every level and on every repeat.
type Classes struct {
	Names  []string
	Shares []float64 // each > 0, summing to 1
	Seed   int64
	// Prompts are the classes' own prompts, by class index (nil: none has
	// any; a nil entry: that class sends Config.Prompt's). They apply to
	// the requests built from Config.Prompt, not to a session's turns or
	// a trace's requests.
	Prompts []func(seq int) client.Prompt
}

// Draw is the index of the class of the request with draw key key.
func (c *Classes) Draw(key int) int {
	u := rand.New(rand.NewPCG(uint64(c.Seed), uint64(key)^0x9e3779b97f4a7c15)).Float64()
	var cum float64
	for i, s := range c.Shares {
		if cum += s; u < cum {
			return i
		}
	}
	return len(c.Shares) - 1 // rounding: the shares' sum a hair below 1
}

// Normalise scales shares to sum to 1; it reports false when a share is
// not a positive finite number.
func Normalise(shares []float64) ([]float64, bool) {
	var sum float64
	for _, s := range shares {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, false
		}
		sum += s
	}
	out := make([]float64, len(shares))
	for i, s := range shares {
		out[i] = s / sum
	}
	return out, len(shares) > 0
}

// prompt is ticket seq's prompt: its class's own, when the class it is
// drawn into has prompts (Classes.Prompts), else Config.Prompt's.
func (s *sender) prompt(seq int) client.Prompt {
	if c := s.cfg.Classes; c != nil && len(c.Prompts) > 0 {
		if f := c.Prompts[c.Draw(seq)]; f != nil {
			return f(seq)
		}
	}
	return s.cfg.Prompt(seq)
}

// classify draws p's class (nil Classes: none), by the session's number
// when the request is a session's turn, else by its ticket, and sets its
// Variant and tg's class name.
func (s *sender) classify(p *client.Prompt, t Ticket, tg *tags) {
	c := s.cfg.Classes
	if c == nil || len(c.Names) == 0 {
		return
	}
	key := t.Seq
	if tg.session > 0 {
		key = -tg.session // apart from the tickets' keys
	}
	i := c.Draw(key)
	p.Variant, tg.class = i+1, c.Names[i]
}
