package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/sweep"
)

// TestDurationBoundsTheLevel: --duration stops issuing, and the requests
// still in flight get --drain-timeout, not --request-timeout (10 minutes
// here), before they are canceled and recorded as err_canceled with a
// message naming the drain. The drain's timer is armed as the first
// measured request's ticket is taken, before that request's Start is
// stamped, so the bound is taken from a stamp before it: with one warm-up
// request per worker, the first measured ticket goes to a worker whose
// warm-up has ended. (Judged from the first measured Start, the bound
// needed a 20 ms allowance for the worker's way from ticket to Start,
// which a busy machine can exceed.)
func TestDurationBoundsTheLevel(t *testing.T) {
	// Serial: the four healthy requests must end inside the 300 ms level.
	const duration, drain = 300 * time.Millisecond, 200 * time.Millisecond
	// The probe, the two warm-ups and the first four measured requests
	// stream normally; every later one stalls after a token and would hold
	// its worker for 10 minutes.
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
		p.fault = func(n int64) streamFault {
			if n > 1+2+4 {
				return streamFault{kind: faultStall, after: 1}
			}
			return streamFault{}
		}
	})
	out := t.TempDir() + "/run"
	began := time.Now()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--levels", "2", "--warmup", "2",
		"--duration", duration.String(), "--drain-timeout", drain.String(), "--request-timeout", "10m", "--out", out)
	took := time.Since(began)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if took > 3*time.Minute { // a generous bound: charts and HTML under -race on a busy box take a while

		t.Errorf("the sweep took %v: the drain did not bound the level", took)
	}
	row := readLevels(t, out)[0]
	if row["end_reason"] != string(sweep.Deadline) || row["err_canceled"] != "2" {
		t.Errorf("end_reason %s, err_canceled %s; want deadline, 2 (one stalled request per worker)", row["end_reason"], row["err_canceled"])
	}
	var warmEnd time.Duration = -1 // the first warm-up's end: before the drain was armed
	for _, r := range readRecords(t, out) {
		if r.Warmup && (warmEnd < 0 || r.End < warmEnd) {
			warmEnd = r.End
		}
	}
	if warmEnd < 0 {
		t.Fatal("requests.jsonl holds no warm-up record")
	}
	for _, r := range readRecords(t, out) {
		if r.ErrorClass != client.Canceled {
			continue
		}
		if !strings.Contains(r.Error, "drain") {
			t.Errorf("canceled request's error %q does not name the drain", r.Error)
		}
		// Canceled no earlier than duration + drain after the first
		// warm-up's end, and well before the request timeout.
		if at := r.End - warmEnd; at < duration+drain || at > 10*time.Second {
			t.Errorf("a stalled request ended %v after the first warm-up's end, want about %v", at, duration+drain)
		}
	}
}

func TestDrainTimeoutMustBePositive(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--sim", "--drain-timeout", "0s", "--out", t.TempDir()+"/run")
	if code != ExitUsage || !strings.Contains(stderr, "invalid --drain-timeout 0s") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("exit %d, stderr %q; want a one-line usage error", code, stderr)
	}
}
