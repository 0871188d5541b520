package app

import (
	"context"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/internal/tokcount"
	"github.com/toksweep/toksweep/workload"
)

func TestSessionUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		// The mode's checks (mode/sessions tests each) as the command line
		// says them: before the prompt set is read, and against its source.
		{[]string{"--turns", "3", "--prompt", "hi"}, "--turns makes synthetic sessions, sized by --input-tokens"},
		{[]string{"--think-time", "1s"}, "--think-time is the pause between a session's turns"},
		// Sessions are a closed loop: with --rates they were silently
		// dropped; now the one rule between modes refuses them.
		{[]string{"--turns", "2", "--input-tokens", "100", "--rates", "4"}, "--rates and --turns are exclusive: they set two load modes (rate and sessions)"},
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
// earlier one's plus its reply (read back as the tokens generated) and a
// new follow-up message; the figures and the console line are there.
func TestSyntheticSessionsSweep(t *testing.T) {
	t.Parallel()
	const out = 8
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
		// The simulator reads the reply back as its out tokens (one more
		// if it stops inside a word) and counts the follow-up's words
		// as workload estimates them, give or take a token for where
		// they fall, plus a chat template's overhead per message.
		lo, hi := prev+out+workload.FollowUpTokens-10, prev+out+1+2*tokcount.ChatMessageOverhead+workload.FollowUpTokens+1
		if !ok || p < lo || p > hi {
			t.Errorf("session %d turn %d: prompt %d tokens after %d: want %d to %d, the history, the %d-token reply and a follow-up of ~%d", k[0], k[1], p, prev, lo, hi, out, workload.FollowUpTokens)
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
