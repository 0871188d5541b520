package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"
)

// A server with PromptTokenScale counts a text prompt as scale × the
// package's rule (rounded), in usage.prompt_tokens, streamed or not, and
// in the prefill it charges (Stats.PromptTokens); a prompt of token ids is
// counted as it is; and a repeated prompt still hits the prefix cache for
// all its full blocks of the scaled count.
func TestPromptTokenScaleCountsAndCaches(t *testing.T) {
	prompt := words(200)
	for _, scale := range []float64{0, 1, 0.5, 4.5} {
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxModelLen, cfg.PromptTokenScale = 2048, scale
			srv, url := startSim(t, cfg)
			want := ChatPromptTokens(prompt)
			if scale != 0 {
				want = int(math.Round(scale * float64(want)))
			}
			hit := (want - 1) / BlockSize * BlockSize
			for i, wantHit := range []int{0, hit} {
				body := chatBody(prompt, 3)
				body["stream_options"] = map[string]any{"include_usage": true}
				_, u, _ := tokenStamps(t, streamReq(t, url+"/v1/chat/completions", body))
				got, _ := path(u, "prompt_tokens").(float64)
				cached, _ := path(u, "prompt_tokens_details", "cached_tokens").(float64)
				if int(got) != want || int(cached) != wantHit {
					t.Errorf("request %d: usage %v, want prompt_tokens %d, cached %d", i+1, u, want, wantHit)
				}
			}
			m := decodeBody(t, post(t, context.Background(), url+"/v1/completions",
				map[string]any{"prompt": []int{5, 6, 7, 8, 9}, "max_tokens": 2}))
			if got, _ := path(m, "usage", "prompt_tokens").(float64); got != 5 {
				t.Errorf("a prompt of 5 token ids: usage %v, want prompt_tokens 5 (ids are not scaled)", m["usage"])
			}
			if st := srv.Stats(); st.PromptTokens != int64(2*want+5) {
				t.Errorf("Stats.PromptTokens = %d, want %d (two prompts of %d and one of 5)", st.PromptTokens, 2*want+5, want)
			}
		})
	}
}

// scaleIDs keeps a shared prefix shared: the scaled ids of a prompt are
// the first ids of the scaled ids of any prompt that extends it.
func TestScaleIDsKeepsPrefixes(t *testing.T) {
	long := textIDs(words(300))
	for _, scale := range []float64{0.3, 1.7, 4.5} {
		all := scaleIDs(long, scale)
		if want := int(math.Round(scale * 300 * 1.3)); len(all) != want && len(all) != want+1 {
			t.Errorf("scale %g: %d ids from %d, want about %d", scale, len(all), len(long), want)
		}
		for _, n := range []int{1, 7, 100, 389} {
			part := scaleIDs(long[:n], scale)
			if !slices.Equal(part, all[:len(part)]) {
				t.Errorf("scale %g: the first %d ids' scaling is not a prefix of the whole's", scale, n)
			}
		}
	}
	if got := scaleIDs(long[:1], 0.3); len(got) != 1 {
		t.Errorf("one id at scale 0.3: %d ids, want 1 (at least one)", len(got))
	}
}
