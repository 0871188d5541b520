package app

import (
	"context"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
	"github.com/toksweep/toksweep/sim"
)

// The estimate before level 1 rests on the pre-flight's measured speed:
// 8 chunks 10 ms apart after a 100 ms TTFT is 10 ms a token, so a request
// of 2048 tokens takes 0.1 + 20.48 s; a dataset's varied targets are a mean.
func TestUpFrontFromThePreflight(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	rec := client.Record{Start: 0, FirstToken: 100 * ms}
	for i := range 8 {
		rec.ChunkAt = append(rec.ChunkAt, 100*ms+time.Duration(i)*10*ms)
	}
	o := withLevels(&options{Line: mode.Line{Requests: 4}, MaxTokens: 2048}, 1)
	o.check.Rec, o.check.Measured = rec, true
	plan := newTiming(o, []client.Prompt{{Text: "a"}})
	if per := plan.AssumedPerRequest(); per != 100*ms+2048*10*ms {
		t.Errorf("one request: %v, want 20.58s", per)
	}
	want := "the sweep takes about 1 minute: 1 level × 4 requests per worker (up to 2048 output tokens each), " +
		"at the pre-flight request's 100 tok/s per stream after a TTFT of 100ms (21s a request, alone on the server); re-estimated after each level"
	if got := plan.UpFront(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	plan = newTiming(o, []client.Prompt{{Text: "a", MaxTokens: 100}, {Text: "b", MaxTokens: 300}})
	if got := plan.UpFront(); !strings.Contains(got, "(a mean of 200 output tokens each)") {
		t.Errorf("varied targets: %s", got)
	}
}

// A sweep says up front how long it will take, and after each level but
// the last how long is left, measured; off a terminal, in plain lines.
func TestSweepSaysHowLongItTakes(t *testing.T) {
	t.Parallel()
	url := steadySim(t, nil)
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--levels", "1,2", "--requests", "4",
		"--max-tokens", "8", "--metrics-url", "off", "--out", filepath.Join(t.TempDir(), "run"))
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"\ntoksweep: the sweep takes a few seconds: 2 levels × 2–4 requests per worker (up to 8 output tokens each), at the pre-flight request's ",
		"\ntoksweep: a few seconds left for 1 more level run (measured ",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := strings.Count(stderr, "more level run"); n != 1 || strings.Contains(stderr, "\r") {
		t.Errorf("want one re-estimate (after C=1, none after the last level) and no carriage return:\n%q", stderr)
	}
}

// scale at C beyond the simulator's 32 slots: twice the generations (half
// the requests wait), each step of a batch of 32.
func TestScaleQueuesBeyondTheSlots(t *testing.T) {
	t.Parallel()
	cfg, err := sim.Preset("default")
	if err != nil {
		t.Fatal(err)
	}
	p := mode.Timing{Tokens: 128, Slots: cfg.MaxNumSeqs, Step: simStep(cfg, 128)}
	batch := float64(p.Step(32)) / float64(p.Step(1))
	for c, want := range map[int]float64{1: 1, 32: batch, 64: 2 * batch} {
		if got := p.Scale(c); math.Abs(got-want) > 1e-9 {
			t.Errorf("scale(%d) = %.3f, want %.3f", c, got, want)
		}
	}
	if got := p.Alone(64, time.Duration(2*batch*float64(time.Second))); (got - time.Second).Abs() > time.Microsecond {
		t.Errorf("alone(64) = %v, want 1s", got)
	}
	if (mode.Timing{}).Scale(64) != 1 {
		t.Error("nothing known of the server: scale must be 1")
	}
}

// upFrontSeconds reads the up-front estimate off the sweep's stderr
// (false when there is none).
func upFrontSeconds(stderr string) (float64, bool) {
	m := regexp.MustCompile(`the sweep takes (a few seconds|about ([\d.]+) (seconds|minutes?|hours))`).FindStringSubmatch(stderr)
	switch {
	case m == nil:
		return 0, false
	case m[1] == "a few seconds":
		return 5, true
	}
	n, _ := strconv.ParseFloat(m[2], 64)
	switch m[3] {
	case "minute", "minutes":
		n *= 60
	case "hours":
		n *= 3600
	}
	return n, true
}

// The README's own commands on the built-in simulator: the estimate said
// before level 1 is within 2× of the time the sweep took (the queueing at
// C=64, beyond the simulator's 32 slots, and the sessions' think time
// included). The timing is the machine's, so a miss is retried once.
func TestETAOfTheReadmeCommands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the README's sweeps (about 25 s each)")
	}
	var wg sync.WaitGroup
	for _, args := range [][]string{
		{"sweep", "--sim"},
		{"sweep", "--sim", "--turns", "4", "--think-time", "1s", "--levels", "1,4", "--requests", "16"},
	} {
		// The two sweeps are independent and mostly wait on the simulator's
		// steps: they run beside each other and the package's other tests
		// (goroutines rather than parallel subtests, so that they start
		// with this test rather than wait for free slots).
		wg.Go(func() { readmeETA(t, args) })
	}
	wg.Wait()
}

// readmeETA runs one README command and holds its up-front estimate to
// within 2× of the time it took, trying twice. It may run in a goroutine
// of its own: it fails t with Errorf only.
func readmeETA(t *testing.T, args []string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		began := time.Now()
		code, _, stderr := runCLI(t, context.Background(), append(args, "--out", filepath.Join(t.TempDir(), "run"))...)
		took := time.Since(began).Seconds()
		if code != ExitOK {
			t.Errorf("%v: exit %d\n%s", args, code, stderr)
			return
		}
		est, ok := upFrontSeconds(stderr)
		if !ok {
			t.Errorf("%v: no up-front estimate in:\n%s", args, stderr)
			return
		}
		// The line names the pre-flight's speed the estimate rests on: a
		// miss says whether the pre-flight or the sweep was off.
		t.Logf("%v: estimated %.0f s, took %.1f s: %s", args, est, took, upFrontLine(stderr))
		if est >= took/2 && est <= 2*took {
			break
		}
		if attempt == 2 {
			t.Errorf("%v: estimated %.0f s, took %.1f s: not within 2×", args, est, took)
			break
		}
	}
}

// upFrontLine is the up-front estimate's line of stderr ("" when none).
func upFrontLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		if strings.Contains(line, "the sweep takes ") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// upFrontSeconds reads every form mode.About() writes: "about 1 minute" read
// as no estimate at all before, and failed TestETAOfTheReadmeCommands.
func TestUpFrontSecondsReadsEveryForm(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]float64{9 * time.Second: 5, 23 * time.Second: 25, 80 * time.Second: 60,
		27 * time.Minute: 27 * 60, 150 * time.Minute: 2.5 * 3600} {
		if got, ok := upFrontSeconds("toksweep: the sweep takes " + mode.About(d) + ": 1 level"); !ok || got != want {
			t.Errorf("%q: %v %v, want %v", mode.About(d), got, ok, want)
		}
	}
}
