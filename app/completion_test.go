package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The bash script completes a real toksweep: a command from its first
// letters, a sweep flag from its first letters (bash runs the built
// binary, found on PATH as toksweep).
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	if err := os.Symlink(buildBinary(t), filepath.Join(dir, "toksweep")); err != nil {
		t.Fatal(err)
	}
	code, script, stderr := runCLI(t, context.Background(), "completion", "bash")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	complete := func(words ...string) string {
		t.Helper()
		line := `eval "$SCRIPT"; COMP_WORDS=(` + strings.Join(words, " ") + `); COMP_CWORD=` + strconv.Itoa(len(words)-1) + `; _toksweep_complete; echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "--norc", "-c", line)
		cmd.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"), "SCRIPT="+script)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("toksweep", "sw"); got != "sweep" {
		t.Errorf("toksweep sw<TAB>: %q, want sweep", got)
	}
	if got := complete("toksweep", "sweep", "--ra"); got != "--rates" {
		t.Errorf("toksweep sweep --ra<TAB>: %q, want --rates", got)
	}
	if got := complete("toksweep", "co"); got != "compare completion" {
		t.Errorf("toksweep co<TAB>: %q, want compare completion", got)
	}
}

// zsh's script is bash's under bashcompinit; fish's lists every command
// and flag; another shell is a usage error.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	_, zsh, _ := runCLI(t, context.Background(), "completion", "zsh")
	if !strings.HasPrefix(zsh, "autoload -U +X bashcompinit && bashcompinit\n") || !strings.Contains(zsh, "complete -o bashdefault -o default -F _toksweep_complete toksweep") {
		t.Errorf("zsh script:\n%s", zsh)
	}
	code, fish, stderr := runCLI(t, context.Background(), "completion", "fish")
	if code != ExitOK || !strings.Contains(fish, "complete -c toksweep") || !strings.Contains(fish, "-l rates") || !strings.Contains(fish, "'sweep'") {
		t.Errorf("fish: exit %d\n%s\n%s", code, fish, stderr)
	}
	for _, args := range [][]string{{"completion", "pwsh"}, {"completion"}} {
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitUsage || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want %d and one line", args, code, stderr, ExitUsage)
		}
	}
}
