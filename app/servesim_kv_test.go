package app

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// startServeSim runs `toksweep serve-sim` with args on a free port until
// the test ends and returns its base URL once it answers /health.
func startServeSim(t *testing.T, args ...string) string {
	t.Helper()
	addr := rawserver.Free(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		code, _, _ := runCLI(t, ctx, append([]string{"serve-sim", "--addr", addr}, args...)...)
		done <- code
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("serve-sim did not stop on cancel")
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve-sim never answered /health: %v", err)
		}
	}
}

// metricValue returns one unlabelled-but-model sample of /metrics.
func metricValue(t *testing.T, base, name string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\{[^}]*\} (\S+)$`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatalf("/metrics has no %s", name)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The KV-cache flags reach the simulator: --no-prefix-caching stops the
// prefix cache's counters, which move without it.
func TestServeSimPrefixCachingFlag(t *testing.T) {
	t.Parallel()
	prompt := strings.Repeat("the same long opening again ", 20) // 100 words: 134 tokens, 8 full blocks
	body := `{"messages":[{"role":"user","content":"` + prompt + `"}],"max_tokens":2}`
	for _, tt := range []struct {
		args     []string
		wantHits float64
	}{
		{nil, 8 * 16},
		{[]string{"--no-prefix-caching"}, 0},
	} {
		base := startServeSim(t, append([]string{"--preset", "fast", "--kv-cache-tokens", "65536", "--max-num-batched-tokens", "64"}, tt.args...)...)
		for range 2 {
			resp, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if got := metricValue(t, base, "vllm:prefix_cache_hits_total"); got != tt.wantHits {
			t.Errorf("serve-sim %v: prefix cache hits %v, want %v", tt.args, got, tt.wantHits)
		}
	}
}

// Bad KV-cache settings are a one-line usage error naming the setting.
func TestServeSimBadKVFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--kv-cache-tokens", "1000"}, "KVCacheTokens"}, // the fast preset's 4096-token context does not fit
		{[]string{"--max-num-batched-tokens", "8"}, "MaxNumBatchedTokens"},
		{[]string{"--kv-cache-tokens", "1000", "--max-num-batched-tokens", "8"}, "KVCacheTokens must hold one MaxModelLen sequence (4096 tokens in blocks of 16), got 1000; MaxNumBatchedTokens"},
	} {
		code, _, stderr := runCLI(t, context.Background(), append([]string{"serve-sim", "--addr", "127.0.0.1:0", "--preset", "fast"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("serve-sim %v: exit %d, stderr %q; want %d and one line naming %s", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}
