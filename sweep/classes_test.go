package sweep

import (
	"context"
	"math"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/toksweep/toksweep/client"
)

// variantDoer answers at once and notes each request's Variant by seq.
type variantDoer struct {
	*fakeDoer
	mu   sync.Mutex
	sent map[int]int // PromptID → Variant
}

func (d *variantDoer) Do(ctx context.Context, p client.Prompt) client.Record {
	d.mu.Lock()
	d.sent[p.ID] = p.Variant
	d.mu.Unlock()
	return d.fakeDoer.Do(ctx, p)
}

// TestClassDraw: each request is drawn into a class by its share, within
// four binomial standard deviations over a seeded level of n requests;
// it is sent with its class's Variant and its record names the class; the
// same seed draws the same classes at every level, another seed others.
func TestClassDraw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 4000
		cls := &Classes{Names: []string{"interactive", "batch", "tiny"}, Shares: []float64{0.7, 0.25, 0.05}, Seed: 7}
		ps := make([]client.Prompt, n)
		for i := range ps {
			ps[i] = client.Prompt{ID: i}
		}
		d := &variantDoer{fakeDoer: newFake(0), sent: map[int]int{}}
		cfg := Config{Load: ClosedLoad(4, 2), Requests: n, Prompt: Cycle(ps), Classes: cls}
		levels, err := collect(t, context.Background(), cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		byLevel := make([]map[int]string, len(levels))
		for li, l := range levels {
			count := map[string]int{}
			byLevel[li] = map[int]string{}
			for _, r := range l.Records {
				count[r.Class]++
				byLevel[li][r.Seq] = r.Class
				if li == 1 && cls.Names[d.sent[r.PromptID]-1] != r.Class {
					t.Fatalf("seq %d: sent with variant %d, recorded as class %q", r.Seq, d.sent[r.PromptID], r.Class)
				}
			}
			for i, name := range cls.Names {
				p := cls.Shares[i]
				if sd := math.Sqrt(n * p * (1 - p)); math.Abs(float64(count[name])-n*p) > 4*sd {
					t.Errorf("C=%d: class %s drew %d of %d, want %.0f ± %.0f", l.Concurrency, name, count[name], n, n*p, 4*sd)
				}
			}
		}
		for seq, c := range byLevel[0] {
			if byLevel[1][seq] != c {
				t.Fatalf("seq %d is %s at one level and %s at the next", seq, c, byLevel[1][seq])
			}
		}
		other, same := &Classes{Names: cls.Names, Shares: cls.Shares, Seed: 8}, 0
		for seq, c := range byLevel[0] {
			if cls.Names[other.Draw(seq)] == c {
				same++
			}
		}
		if same > n*9/10 {
			t.Errorf("seed 8 draws %d of %d requests as seed 7 does", same, n)
		}
	})
}

// A session's turns keep one class, whatever their tickets.
func TestClassDrawKeepsASessionsClass(t *testing.T) {
	s := &sender{cfg: Config{Classes: &Classes{Names: []string{"a", "b"}, Shares: []float64{0.5, 0.5}, Seed: 1}}}
	seen := map[int]map[string]bool{}
	for session := 1; session <= 50; session++ {
		seen[session] = map[string]bool{}
		for seq := session; seq < session+6; seq++ {
			var p client.Prompt
			tg := tags{session: session}
			s.classify(&p, Ticket{Seq: seq}, &tg)
			seen[session][tg.class] = true
			if p.Variant < 1 || s.cfg.Classes.Names[p.Variant-1] != tg.class {
				t.Fatalf("variant %d for class %q", p.Variant, tg.class)
			}
		}
		if len(seen[session]) != 1 {
			t.Errorf("session %d's turns drew classes %v", session, seen[session])
		}
	}
}

func TestNormalise(t *testing.T) {
	if got, ok := Normalise([]float64{3, 1}); !ok || got[0] != 0.75 || got[1] != 0.25 {
		t.Errorf("Normalise(3, 1) = %v, %v", got, ok)
	}
	for _, bad := range [][]float64{nil, {1, 0}, {-1, 2}, {math.NaN()}, {math.Inf(1)}} {
		if _, ok := Normalise(bad); ok {
			t.Errorf("Normalise(%v) took it", bad)
		}
	}
}
