package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/tokcount"
)

// tokenStamps returns the server's send stamps of a stream's token events,
// the usage chunk (nil without one), and whether it ended with [DONE].
func tokenStamps(t *testing.T, evs []sseEvent) (stamps []time.Time, usage map[string]any, done bool) {
	t.Helper()
	for _, e := range evs {
		if e.data == "[DONE]" {
			done = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(e.data), &m); err != nil {
			t.Fatalf("event %q: %v", e.data, err)
		}
		if u, ok := m["usage"].(map[string]any); ok {
			usage = u
		}
		if chunkText(chatAPI, m) != "" {
			ns, _ := m["x_sent_unix_ns"].(float64)
			stamps = append(stamps, time.Unix(0, int64(ns)))
		}
	}
	return stamps, usage, done
}

// Over HTTP, the prefix cache shows in the usage of a repeated prompt
// (prompt_tokens_details.cached_tokens, streamed or not) and in /metrics'
// prefix-cache counters; with caching off, neither moves.
func TestPrefixCacheUsageAndMetrics(t *testing.T) {
	prompt := words(200)
	P := ChatPromptTokens(prompt)
	hit := (P - 1) / BlockSize * BlockSize
	for _, caching := range []bool{true, false} {
		t.Run(fmt.Sprintf("caching=%v", caching), func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxModelLen, cfg.NoPrefixCaching = 1024, !caching
			_, url := startSim(t, cfg)
			wantHit := map[bool]int{true: hit, false: 0}[caching]
			for i, want := range []int{0, wantHit} {
				body := chatBody(prompt, 3)
				body["stream_options"] = map[string]any{"include_usage": true}
				_, u, _ := tokenStamps(t, streamReq(t, url+"/v1/chat/completions", body))
				got, _ := path(u, "prompt_tokens_details", "cached_tokens").(float64)
				if int(got) != want || (want == 0) != (path(u, "prompt_tokens_details") == nil) {
					t.Errorf("request %d: usage %v, want cached_tokens %d (absent when 0, as vLLM)", i+1, u, want)
				}
			}
			m := decodeBody(t, post(t, context.Background(), url+"/v1/chat/completions", chatBody(prompt, 3)))
			if got, _ := path(m, "usage", "prompt_tokens_details", "cached_tokens").(float64); int(got) != wantHit {
				t.Errorf("non-streamed repeat: usage %v, want cached_tokens %d", m["usage"], wantHit)
			}
			s := scrape(t, url)
			wantQ := map[bool]float64{true: 3 * float64(P), false: 0}[caching]
			if q, h := s["vllm:prefix_cache_queries_total{}"], s["vllm:prefix_cache_hits_total{}"]; q != wantQ || h != 2*float64(wantHit) {
				t.Errorf("/metrics prefix cache queries %v, hits %v; want %v, %v", q, h, wantQ, 2*wantHit)
			}
		})
	}
}

// Over HTTP, a KV cache too small for the load preempts: /metrics counts it,
// every stream still completes, and the preempted streams' send stamps show
// the pause (waiting for blocks, then the recompute) as an ITL spike far
// above a plain step.
func TestPreemptionOverHTTP(t *testing.T) {
	const c, out = 4, 200
	cfg := preemptConfig(256) // 16 blocks for 4 × (6 + 200) tokens
	cfg.Model, cfg.StampSendTime = "test-model", true
	_, url := startSim(t, cfg)
	longest := make([]time.Duration, c)
	var wg sync.WaitGroup
	errs := make([]error, c)
	for i := range c {
		wg.Go(func() {
			evs, err := fetchStream(url+"/v1/chat/completions", chatBody("hello", out))
			if err != nil {
				errs[i] = err
				return
			}
			stamps, _, done := tokenStamps(t, evs)
			if len(stamps) != out || !done {
				errs[i] = fmt.Errorf("stream %d: %d token events, [DONE] %v; want %d and true", i, len(stamps), done, out)
				return
			}
			longest[i] = slices.Max(gaps(stamps))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s := scrape(t, url)
	if s["vllm:num_preemptions_total{}"] == 0 {
		t.Fatalf("vllm:num_preemptions_total = 0 with %d-token KV for %d×206 tokens", cfg.KVCacheTokens, c)
	}
	// A plain step here is about 1.2ms; a preempted stream waits for a
	// running one to free its blocks (tens of steps) and then recomputes
	// 60+ tokens at 100µs each, so its pause exceeds 20ms however busy the
	// host is (a late writer only lengthens gaps on average).
	t.Logf("preemptions %v; longest send-stamp gap per stream %v", s["vllm:num_preemptions_total{}"], longest)
	if slices.Max(longest) < 20*time.Millisecond {
		t.Errorf("no stream paused 20ms or more: %v", longest)
	}
}

// The next turn of a conversation (the first prompt, the reply as
// streamed, a new user message) finds the first turn's prompt and reply
// cached: the full blocks of the first turn's prompt plus its 64 generated
// tokens, 134+64 = 198 tokens, so 12 blocks. The reply reads back as the 64
// tokens generated, so what is left to prefill is under a block plus the
// two messages' template tokens and the 3-token new message (not the third
// of the reply that a word-per-token reply left). A reply with reasoning is
// sent back without it, so only the prompt hits.
func TestNextTurnHitsPromptAndReply(t *testing.T) {
	for _, tt := range []struct {
		reasoning float64
		want      int
	}{
		{0, (134 + 64) / BlockSize * BlockSize},
		{0.5, 134 / BlockSize * BlockSize},
	} {
		cfg := testConfig()
		cfg.MaxModelLen, cfg.ReasoningShare = 1024, tt.reasoning
		_, url := startSim(t, cfg)
		first := words(100) // 134 tokens as a chat message
		var reply strings.Builder
		for _, e := range streamReq(t, url+"/v1/chat/completions", chatBody(first, 64)) {
			if m := (map[string]any{}); json.Unmarshal([]byte(e.data), &m) == nil {
				s, _ := path(m, "choices", 0, "delta", "content").(string)
				reply.WriteString(s)
			}
		}
		body := map[string]any{"max_tokens": 2, "stream_options": map[string]any{"include_usage": true},
			"messages": []map[string]any{{"role": "user", "content": first},
				{"role": "assistant", "content": reply.String()}, {"role": "user", "content": "and then?"}}}
		_, u, _ := tokenStamps(t, streamReq(t, url+"/v1/chat/completions", body))
		cached, _ := path(u, "prompt_tokens_details", "cached_tokens").(float64)
		prompt, _ := u["prompt_tokens"].(float64)
		if int(cached) != tt.want {
			t.Errorf("reasoning share %v: turn 2 usage %v, want cached_tokens %d", tt.reasoning, u, tt.want)
		}
		if rest := int(prompt - cached); tt.reasoning == 0 && rest > BlockSize+2*tokcount.ChatMessageOverhead+3 {
			t.Errorf("turn 2: %d of %v prompt tokens left to prefill, want at most %d", rest, prompt, BlockSize+2*tokcount.ChatMessageOverhead+3)
		}
	}
}

// A completions session's history (FlattenTurns' "…Assistant:" then the
// reply) lines up too: the next prompt finds the first prompt and its reply
// cached.
func TestNextCompletionsTurnHitsReply(t *testing.T) {
	cfg := testConfig()
	cfg.MaxModelLen = 1024
	_, url := startSim(t, cfg)
	first := "User: " + words(100) + "\nAssistant:" // 102 words, 133 tokens
	m := decodeBody(t, post(t, context.Background(), url+"/v1/completions",
		map[string]any{"prompt": first, "max_tokens": 64}))
	reply, _ := path(m, "choices", 0, "text").(string)
	next := first + " " + reply + "\nUser: and then?\nAssistant:"
	m = decodeBody(t, post(t, context.Background(), url+"/v1/completions",
		map[string]any{"prompt": next, "max_tokens": 2}))
	cached, _ := path(m, "usage", "prompt_tokens_details", "cached_tokens").(float64)
	if want := (PromptTokens(first) + 64) / BlockSize * BlockSize; int(cached) != want {
		t.Errorf("turn 2 usage %v, want cached_tokens %d", m["usage"], want)
	}
}
