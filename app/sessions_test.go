package app

import (
	"context"
	"strings"
	"testing"
)

func TestSessionUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--turns", "3"}, "--turns makes synthetic sessions: it needs --input-tokens"},
		{[]string{"--turns", "0", "--input-tokens", "100"}, "invalid --turns 0"},
		{[]string{"--multi-turn"}, "--multi-turn replays a dataset's conversations: it needs --dataset"},
		{[]string{"--think-time", "1s"}, "--think-time is the pause between a session's turns"},
		{[]string{"--turns", "2", "--input-tokens", "100", "--think-time", "1s:x"}, `invalid --think-time "1s:x"`},
		{[]string{"--turns", "2", "--input-tokens", "100", "--think-time", "-1s"}, `invalid --think-time "-1s"`},
	} {
		args := append([]string{"sweep", "--url", "http://127.0.0.1:9/v1", "--out", t.TempDir()}, tt.args...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and one line with %q", tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}

// TestSyntheticSessionsSweep runs synthetic sessions against the
// simulator: each later turn's prompt, by the server's count, holds the
// earlier one's plus its reply and a new message; the figures and the
// console line are there.
func TestSyntheticSessionsSweep(t *testing.T) {
	const in, out = 200, 8
	url := steadySim(t, nil)
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--levels", "2", "--requests", "6",
		"--turns", "3", "--input-tokens", "200", "--max-tokens", "8", "--think-time", "50ms:10ms", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	prompt := map[[2]int]int{} // by session and turn
	for _, r := range readRecords(t, dir) {
		if r.Session == 0 || r.Turn < 1 || r.Turn > 3 || !r.OK() {
			t.Fatalf("record session %d turn %d (%s): want a successful turn 1 to 3", r.Session, r.Turn, r.ErrorClass)
		}
		prompt[[2]int{r.Session, r.Turn}] = r.PromptTokens
	}
	later := 0
	for k, p := range prompt {
		if k[1] == 1 {
			continue
		}
		later++
		prev, ok := prompt[[2]int{k[0], k[1] - 1}]
		// The simulator counts about a token per 4 bytes, and a chat
		// template's overhead: require the new message's bulk, loosely.
		if !ok || p < prev+out+in/2 {
			t.Errorf("session %d turn %d: prompt %d tokens after %d: want the history (+%d reply) and a new message of ~%d", k[0], k[1], p, prev, out, in)
		}
	}
	if later == 0 {
		t.Fatal("no later turn")
	}
	lv := readLevels(t, dir)[0]
	if lv["sessions"] == "" || lv["sessions"] == "0" || lv["sessions_failed"] != "0" || lv["ttft_later_p50_ms"] == "" || lv["prompt_tokens_later_mean"] == "" {
		t.Errorf("levels.csv session columns: sessions %q failed %q ttft_later_p50 %q prompt_later %q",
			lv["sessions"], lv["sessions_failed"], lv["ttft_later_p50_ms"], lv["prompt_tokens_later_mean"])
	}
	if !strings.Contains(stdout, "C=2: later turns: TTFT p50 ") {
		t.Errorf("no per-turn line on the console:\n%s", stdout)
	}
}
