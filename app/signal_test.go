//go:build unix

package app

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary builds toksweep (main.go's signal handling included) into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the binary with")
	}
	bin := filepath.Join(dir, "toksweep")
	cmd := exec.Command(gobin, "build", "-o", bin, "github.com/toksweep/toksweep")
	cmd.Dir = ".." // the module root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestInterruptBuiltBinary runs the real binary, interrupts it while level
// 2's requests are in flight, and checks the promise of Ctrl-C: exit 130 at
// once, level 1 complete on disk, level 2 written as canceled, and every
// file valid.
func TestInterruptBuiltBinary(t *testing.T) {
	bin := buildBinary(t, t.TempDir())
	const perLevel = 3
	signals := []struct {
		name string
		sigs []os.Signal
	}{
		{"SIGINT", []os.Signal{os.Interrupt}},
		{"SIGTERM", []os.Signal{syscall.SIGTERM}},
		{"second SIGINT", []os.Signal{os.Interrupt, os.Interrupt}},
	}
	for _, sc := range signals {
		t.Run(sc.name, func(t *testing.T) {
			// Request 1 is the probe, 2..4 are level 1; level 2's stall
			// after one token until the client goes away.
			p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
				p.fault = func(n int64) streamFault {
					if n > 1+perLevel {
						return streamFault{kind: faultStall, after: 1}
					}
					return streamFault{}
				}
			})
			out := filepath.Join(t.TempDir(), "run")
			cmd := exec.Command(bin, "sweep", "--url", p.url(), "--levels", "1,2", "--requests", "3",
				"--request-timeout", "30s", "--out", out)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()

			// Wait for both of level 2's requests to be stalled in flight.
			deadline := time.Now().Add(10 * time.Second)
			for p.requests.Load() < 1+perLevel+2 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					<-done
					t.Fatalf("level 2 never started; stderr:\n%s", stderr.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			sent := time.Now()
			for _, s := range sc.sigs {
				if err := cmd.Process.Signal(s); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10s after the signal; stderr:\n%s", stderr.String())
			}
			if took := time.Since(sent); took > 3*time.Second {
				t.Errorf("exited %v after the signal, want at once", took)
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != ExitInterrupted {
				t.Fatalf("wait: %v, want exit status %d\nstderr:\n%s", err, ExitInterrupted, stderr.String())
			}
			noCrash(t, stdout.String()+stderr.String())
			if !strings.Contains(lastLine(stderr.String()), "interrupt") {
				t.Errorf("last stderr line does not say it was interrupted:\n%s", stderr.String())
			}
			if len(sc.sigs) > 1 {
				checkFilesValid(t, out) // the second signal may cut the writing short; what is there is valid
				return
			}
			if !strings.Contains(lastLine(stderr.String()), out) {
				t.Errorf("the interrupted line does not say where the levels are:\n%s", stderr.String())
			}
			checkInterruptedRun(t, out, perLevel)
		})
	}
}

// checkInterruptedRun checks the run directory of a sweep interrupted
// during level 2.
func checkInterruptedRun(t *testing.T, out string, perLevel int) {
	t.Helper()
	rows := readLevels(t, out)
	if len(rows) != 2 {
		t.Fatalf("levels.csv has %d rows, want level 1 and the partial level 2", len(rows))
	}
	if r := rows[0]; r["end_reason"] != "completed" || num(t, r, "requests_ok") != float64(perLevel) || r["requests_failed"] != "0" {
		t.Errorf("level 1: end=%s ok=%s failed=%s, want completed with %d ok", r["end_reason"], r["requests_ok"], r["requests_failed"], perLevel)
	}
	if r := rows[1]; r["concurrency"] != "2" || r["end_reason"] != "canceled" || r["err_canceled"] != "2" {
		t.Errorf("level 2: C=%s end=%s err_canceled=%s, want C=2 canceled with 2 canceled requests", r["concurrency"], r["end_reason"], r["err_canceled"])
	}
	recs := readRecords(t, out)
	if len(recs) != perLevel+2 {
		t.Errorf("requests.jsonl has %d records, want %d", len(recs), perLevel+2)
	}
	var sum struct {
		EndReason string    `json:"end_reason"`
		Finished  time.Time `json:"finished"`
		Levels    []struct {
			EndReason string `json:"end_reason"`
		} `json:"levels"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if sum.EndReason != "canceled" || sum.Finished.IsZero() || len(sum.Levels) != 2 || sum.Levels[1].EndReason != "canceled" {
		t.Errorf("summary.json: end_reason %q, finished %v, %d levels; want canceled, set, 2 with the last canceled",
			sum.EndReason, sum.Finished, len(sum.Levels))
	}
}

// checkFilesValid checks that whatever the run left is well-formed: CSV
// with whole rows, whole JSON lines, and a JSON summary.
func checkFilesValid(t *testing.T, out string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(out, "levels.csv")); err == nil {
		if _, err := csv.NewReader(bytes.NewReader(b)).ReadAll(); err != nil {
			t.Errorf("levels.csv is not valid CSV: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "requests.jsonl")); err == nil {
		readRecords(t, out)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err == nil {
		var v map[string]any
		readJSON(t, filepath.Join(out, "summary.json"), &v)
	}
}
