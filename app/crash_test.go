//go:build unix

package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toksweep/toksweep/rundir"
)

// TestKill9RecoversLevel: the built binary, killed with SIGKILL a few
// seconds into a 60 s level, leaves that level's records in the level file
// (synced each second); `report DIR` then gives the level's figures over
// them, marked crashed, and a second report gives the same.
func TestKill9RecoversLevel(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "soak")
	cmd := toksweepCmd(bin, "sweep", "--sim", "--levels", "2", "--duration", "60s", "--max-tokens", "32", "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // a failed test leaves nothing running
	// Wait until records reached the level file, then give it two more
	// sync intervals.
	level := filepath.Join(out, rundir.LevelFile)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if st, err := os.Stat(level); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no record reached the level file in 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * rundir.SyncEvery)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	onDisk, err := os.ReadFile(level)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(onDisk), "\n") // whole records on disk, warm-up none

	for run := range 2 {
		rep := toksweepCmd(bin, "report", out) // SVG charts only, as runCLI has them
		b, err := rep.CombinedOutput()
		if err != nil {
			t.Fatalf("report %d: %v\n%s", run+1, err, b)
		}
		if !strings.Contains(string(b), "recovered from "+rundir.LevelFile) {
			t.Errorf("report %d does not say the level was recovered:\n%s", run+1, b)
		}
		if pngs, _ := filepath.Glob(filepath.Join(out, "charts", "*.png")); len(pngs) > 0 {
			t.Errorf("report %d rendered PNG charts %v, want SVG only (issue 20)", run+1, pngs)
		}
		rows := readLevels(t, out)
		if len(rows) != 1 {
			t.Fatalf("report %d: %d levels, want the crashed one", run+1, len(rows))
		}
		ok, _ := strconv.Atoi(rows[0]["requests_ok"])
		failed, _ := strconv.Atoi(rows[0]["requests_failed"])
		if rows[0]["end_reason"] != "crashed" || ok == 0 || ok+failed != lines || rows[0]["ttft_p95_ms"] == "" {
			t.Errorf("report %d: level C=%s end_reason %q, %d ok + %d failed, ttft_p95 %q; want crashed, the %d records on disk, a TTFT",
				run+1, rows[0]["concurrency"], rows[0]["end_reason"], ok, failed, rows[0]["ttft_p95_ms"], lines)
		}
	}
}
