package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The pages whose example commands TestDocExamples runs, from the module
// root.
var docPages = []string{"README.md", "docs/guide.md"}

// docDirs are the repository folders a doc example may read, copied into
// each example's working directory (so that `report DIR` re-renders a copy).
var docDirs = []string{"testdata/runs", "workload/trace/testdata", "testdata/datasets"}

// docExampleTimeout bounds one example: an example that takes longer is
// shortened or marked, not waited for.
const docExampleTimeout = 20 * time.Second

// docExample is one `toksweep …` command of a page's fenced block.
type docExample struct {
	where string   // page:line
	block string   // page:line of the block's fence: a block's commands run in order, in one directory
	args  []string // after the program name
	exit  int      // the documented exit status
	sim   []string // serve-sim flags: the block's --url is a simulator the test starts
	err   string   // why the command cannot be run: the test fails on it
}

// The markers a page puts on the line before a fence:
//
//	<!-- not run: REASON -->   the block's commands are not run (REASON says why)
//	<!-- exit N -->            the block's commands exit with status N
//	<!-- sim: FLAGS -->        --url names a serve-sim FLAGS the test starts
const (
	markNotRun = "<!-- not run:"
	markExit   = "<!-- exit "
	markSim    = "<!-- sim:"
)

// TestDocExamples runs every example command of the README and the guide
// that needs nothing but the built-in simulator, the saved runs in
// testdata/runs and the traces in workload/trace/testdata, and holds it to
// its documented exit status. A command it cannot run (a real server, an
// external URL, a shell loop) fails the test unless its block is marked
// `<!-- not run: … -->`, so an example cannot rot unseen.
func TestDocExamples(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the docs' example sweeps (about 10 s)")
	}
	var examples []docExample
	skipped := 0
	for _, page := range docPages {
		ex, sk := readDocExamples(t, page)
		examples, skipped = append(examples, ex...), skipped+sk
	}
	t.Logf("%d example commands to run, %d in blocks marked not run", len(examples), skipped)
	if len(examples) == 0 {
		t.Fatal("no example command found: the pages or the parser changed")
	}
	bin := buildBinary(t)
	for len(examples) > 0 {
		n := 1
		for n < len(examples) && examples[n].block == examples[0].block {
			n++
		}
		block := examples[:n]
		examples = examples[n:]
		t.Run(block[0].block, func(t *testing.T) {
			for _, ex := range block {
				if ex.err != "" {
					t.Fatalf("%s: toksweep %s: %s: shorten it, or mark its block %s REASON -->", ex.where, strings.Join(ex.args, " "), ex.err, markNotRun)
				}
			}
			t.Parallel()
			dir := t.TempDir()
			for _, d := range docDirs {
				if err := os.CopyFS(filepath.Join(dir, d), os.DirFS(filepath.Join("..", d))); err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
			}
			for _, ex := range block {
				runDocExample(t, bin, dir, ex)
			}
		})
	}
}

// runDocExample runs ex in dir, which holds copies of docDirs.
func runDocExample(t *testing.T, bin, dir string, ex docExample) {
	args := ex.args
	if ex.sim != nil {
		url := serveSimProcess(t, bin, ex.sim...)
		args = replaceURL(args, url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), docExampleTimeout)
	defer cancel()
	cmd := toksweepCmd(bin, args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Dir = dir
	began := time.Now()
	out, err := cmd.CombinedOutput()
	code := 0
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if ctx.Err() != nil {
		t.Fatalf("%s: toksweep %s: still running after %v: shorten it or mark it not run", ex.where, strings.Join(ex.args, " "), docExampleTimeout)
	}
	t.Logf("toksweep %s: exit %d in %.1f s", strings.Join(ex.args, " "), code, time.Since(began).Seconds())
	if code != ex.exit {
		t.Fatalf("%s: toksweep %s: exit %d, the page says %d\n%s", ex.where, strings.Join(ex.args, " "), code, ex.exit, out)
	}
}

// replaceURL points every --url of args at url, and every
// --gpu-metrics-url at its simulator's /gpu/metrics.
func replaceURL(args []string, url string) []string {
	out := append([]string(nil), args...)
	for i := range out {
		if out[i] == "--url" && i+1 < len(out) {
			out[i+1] = url
		}
		if out[i] == "--gpu-metrics-url" && i+1 < len(out) { // the simulator's GPUs
			out[i+1] = strings.TrimSuffix(url, "/v1") + "/gpu/metrics"
		}
	}
	return out
}

// readDocExamples returns the example commands of page (from the module
// root) and how many sit in blocks marked not run.
func readDocExamples(t *testing.T, page string) (examples []docExample, skipped int) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", page))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		in, notRun bool
		marks      []string // the marker lines before the next fence
		exit       int
		sim        []string
		pending    string // a command continued by a trailing backslash
		pendingAt  int
		fence      int // the line of the open block's fence
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			if !in {
				notRun, exit, sim = false, 0, nil
				for _, m := range marks {
					switch {
					case strings.HasPrefix(m, markNotRun):
						notRun = true
					case strings.HasPrefix(m, markExit):
						exit, err = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(m, markExit), "-->")))
						if err != nil {
							t.Fatalf("%s:%d: bad marker %q", page, n, m)
						}
					case strings.HasPrefix(m, markSim):
						sim = strings.Fields(strings.TrimSuffix(strings.TrimPrefix(m, markSim), "-->"))
					}
				}
			}
			in, marks, fence = !in, nil, n
			continue
		}
		if !in {
			if strings.HasPrefix(trimmed, "<!--") {
				marks = append(marks, trimmed)
			} else if trimmed != "" {
				marks = nil
			}
			continue
		}
		if pending != "" {
			pending += " " + trimmed
		} else {
			cmd, ok := docCommandLine(line)
			if !ok {
				continue
			}
			pending, pendingAt = cmd, n
		}
		if strings.HasSuffix(pending, "\\") {
			pending = strings.TrimSuffix(pending, "\\")
			continue
		}
		if notRun {
			skipped++
		} else {
			ex := docExample{where: fmt.Sprintf("%s:%d", page, pendingAt), block: fmt.Sprintf("%s:%d", page, fence), exit: exit, sim: sim}
			ex.args, ex.err = shellWords(pending)
			if ex.err == "" {
				ex.err = unrunnable(ex.args, sim != nil || exit == ExitUsage)
			}
			examples = append(examples, ex)
		}
		pending = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return examples, skipped
}

// docCommandLine is the toksweep command a block's line holds, without the
// program name: a line that starts with it, or with "$ " and it. A line
// that runs toksweep later (a loop, a pipe) is returned whole, to be found
// unrunnable; an error line toksweep printed ("toksweep: …") is output.
func docCommandLine(line string) (string, bool) {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "$ ")
	for _, prog := range []string{"./toksweep ", "toksweep "} {
		if rest, ok := strings.CutPrefix(s, prog); ok {
			return rest, true
		}
	}
	if !strings.HasPrefix(s, "toksweep:") && (strings.Contains(s, "toksweep sweep ") || strings.Contains(s, "do toksweep ")) {
		return s + " # a shell construct", true
	}
	return "", false
}

// shellWords splits s as sh would for a simple command: quotes, backslash
// escapes, a # comment. A shell construct (a variable, a pipe, a loop, a
// redirection) is reported, not run.
func shellWords(s string) (words []string, err string) {
	var (
		word  strings.Builder
		inW   bool
		quote rune
	)
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				word.WriteRune(c)
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '$' || c == '`' {
				return nil, "a shell expansion"
			} else {
				word.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inW = c, true
		case c == '\\' && i+1 < len(s):
			i++
			word.WriteByte(s[i])
			inW = true
		case c == ' ' || c == '\t':
			if inW {
				words, inW = append(words, word.String()), false
				word.Reset()
			}
		case c == '#' && !inW:
			if strings.Contains(s[i:], "a shell construct") {
				return nil, "a shell construct (loop or pipe)"
			}
			i = len(s)
		case strings.ContainsRune("$`|&;<>(){}", c):
			return nil, "a shell construct"
		default:
			word.WriteRune(c)
			inW = true
		}
	}
	if quote != 0 {
		return nil, "an unclosed quote"
	}
	if inW {
		words = append(words, word.String())
	}
	return words, ""
}

// unrunnable says why args need more than the test has ("" when nothing):
// a --url the test does not serve. served is true in a block of a
// simulator the test starts, and in a block of usage errors (which exit
// before any request; one that did not would fail the test).
func unrunnable(args []string, served bool) string {
	for i, a := range args {
		if (a == "--url" || strings.HasPrefix(a, "--url=")) && !served {
			return "needs the server at " + strings.TrimPrefix(strings.Join(args[i:min(i+2, len(args))], " "), "--url ")
		}
	}
	return ""
}
