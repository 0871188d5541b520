package trace

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

func TestTokenIDPrompts(t *testing.T) {
	t.Parallel()
	tr := read(t, "testdata/mooncake.jsonl", Options{})
	b := &Prompts{BlockSize: tr.BlockSize, Salt: 7, TokenIDs: true, Vocab: 5000, MinTokens: true}
	ps := make([]client.Prompt, len(tr.Requests))
	for i := range tr.Requests {
		ps[i] = b.Prompt(&tr.Requests[i])
		r := tr.Requests[i]
		if len(ps[i].TokenIDs) != r.Input || ps[i].MaxTokens != r.Output || ps[i].MinTokens != r.Output || ps[i].Text != "" {
			t.Errorf("request %d: %d ids, max %d, min %d; want %d, %d, %d", i, len(ps[i].TokenIDs), ps[i].MaxTokens, ps[i].MinTokens, r.Input, r.Output, r.Output)
		}
		for _, id := range ps[i].TokenIDs {
			if id < MinTokenID || id >= 5000 {
				t.Fatalf("id %d outside [%d, 5000)", id, MinTokenID)
			}
		}
	}
	// Requests 0 and 2 share blocks 0 and 1 (ids 0, 1), request 1 block 0.
	if !slices.Equal(ps[0].TokenIDs[:1024], ps[2].TokenIDs[:1024]) || !slices.Equal(ps[0].TokenIDs[:512], ps[1].TokenIDs[:512]) {
		t.Error("shared hash ids do not give the same ids")
	}
	if slices.Equal(ps[0].TokenIDs[1024:1100], ps[2].TokenIDs[1024:1100]) || slices.Equal(ps[0].TokenIDs[512:600], ps[1].TokenIDs[512:600]) {
		t.Error("different hash ids give the same ids")
	}
	other := (&Prompts{BlockSize: 512, Salt: 8, TokenIDs: true}).Prompt(&tr.Requests[0])
	if slices.Equal(other.TokenIDs[:512], ps[0].TokenIDs[:512]) {
		t.Error("another salt (level) gives the same ids")
	}
	// Without hash ids every request's tokens are its own.
	az := read(t, "testdata/azure.csv", Options{})
	pa := &Prompts{Salt: 1, TokenIDs: true}
	a0, a1 := pa.Prompt(&az.Requests[0]), pa.Prompt(&az.Requests[1])
	if len(a0.TokenIDs) != 374 || slices.Equal(a0.TokenIDs[:50], a1.TokenIDs[:50]) {
		t.Errorf("azure prompts: %d ids, shared opening %v", len(a0.TokenIDs), slices.Equal(a0.TokenIDs[:50], a1.TokenIDs[:50]))
	}
}

func TestTextPrompts(t *testing.T) {
	t.Parallel()
	tr := read(t, "testdata/mooncake.jsonl", Options{})
	b := &Prompts{BlockSize: tr.BlockSize, Salt: 3, TokensPerWord: 1.25}
	p0, p2 := b.Prompt(&tr.Requests[0]), b.Prompt(&tr.Requests[2])
	w0 := strings.Fields(p0.Text)
	if want := int(math.Round(1100 / 1.25)); len(w0) != want {
		t.Errorf("%d words for 1100 tokens at 1.25 per word, want %d", len(w0), want)
	}
	// Blocks 0 and 1 are 1024 tokens: round(1024/1.25) = 819 words.
	if w2 := strings.Fields(p2.Text); !slices.Equal(w0[:819], w2[:819]) || slices.Equal(w0[819:], w2[819:]) {
		t.Error("text blocks: shared ids must give the same words, others not")
	}
}

func TestFollowUp(t *testing.T) {
	t.Parallel()
	tr := read(t, "testdata/bailian.jsonl", Options{})
	first, second := &tr.Requests[0], &tr.Requests[2] // chat 10, then 12 (input 70)
	b := &Prompts{BlockSize: 16, Salt: 5, TokenIDs: true}
	parent := b.Prompt(first)
	p := b.FollowUp(second, parent, "ignored text", 8)
	if len(p.TokenIDs) != 70 || !slices.Equal(p.TokenIDs[:40], parent.TokenIDs) {
		t.Errorf("token-id follow-up: %d ids (want 70), history kept %v", len(p.TokenIDs), slices.Equal(p.TokenIDs[:40], parent.TokenIDs))
	}
	long := b.FollowUp(second, parent, "", 60) // the reply ran over the trace's length
	if len(long.TokenIDs) != 40+60+1 {
		t.Errorf("over-long history: %d ids, want the history and one new token", len(long.TokenIDs))
	}
	c := &Prompts{BlockSize: 16, Salt: 5, TokensPerWord: 1}
	cp := c.Prompt(first)
	chat := c.FollowUp(second, cp, "four words of reply", 5)
	if len(chat.Messages) != 3 || chat.Messages[0].Content != cp.Text || chat.Messages[1] != (client.Message{Role: "assistant", Content: "four words of reply"}) {
		t.Fatalf("chat follow-up %+v", chat.Messages)
	}
	// 70 tokens at 1 per word: 40 of prompt, 4 of reply, 26 new.
	if n := len(strings.Fields(chat.Messages[2].Content)); n != 26 {
		t.Errorf("new message of %d words, want 26", n)
	}
}

// Hand-computed: errors +10%, −20%, 0 (the unknown length left out):
// mean −10/3 %, p99 of |e| the largest, 20%.
func TestLengthErrors(t *testing.T) {
	t.Parallel()
	e := LengthErrors([]int{110, 80, 50, 0}, []int{100, 100, 50, 70})
	if e.N != 3 || math.Abs(e.Mean-(-0.1/3)) > 1e-12 || e.P99 != 0.2 {
		t.Errorf("%+v", e)
	}
	if none := LengthErrors(nil, nil); none.N != 0 || !math.IsNaN(none.Mean) || !math.IsNaN(none.P99) {
		t.Errorf("no requests: %+v", none)
	}
}
