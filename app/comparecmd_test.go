package app

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/chart"
	"github.com/toksweep/toksweep/report"
)

// slowedCopy writes a copy of the saved run whose every request decodes
// factor times slower (chunk gaps stretched), and returns its directory.
func slowedCopy(t *testing.T, factor float64) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Open(filepath.Join(savedRun, report.RequestsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := report.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	stretch := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	for i := range recs {
		r := &recs[i]
		if len(r.ChunkAt) == 0 {
			continue
		}
		first := r.ChunkAt[0]
		for j := range r.ChunkAt {
			r.ChunkAt[j] = first + stretch(r.ChunkAt[j]-first)
		}
		tail := r.End - r.LastToken
		r.LastToken = r.Start + r.ChunkAt[len(r.ChunkAt)-1]
		r.End = r.LastToken + tail
	}
	var b bytes.Buffer
	if err := report.WriteRecords(&b, recs); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(filepath.Join(savedRun, report.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string][]byte{report.RequestsFile: b.Bytes(), report.SummaryFile: summary} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCompare(t *testing.T) {
	slow := slowedCopy(t, 1.5)
	tests := []struct {
		name    string
		runs    []string
		verdict string // in every decode row of compare.csv
	}{
		{"same run", []string{savedRun, savedRun}, "no significant difference"},
		{"B decodes 1.5× slower", []string{savedRun, slow}, "B is 33.3% slower"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"compare", "--out", out}, tt.runs...)
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != ExitOK {
				t.Fatalf("exit %d\nstderr:\n%s", code, stderr)
			}
			if !strings.Contains(stdout, "B vs A: compared C=1,2,4 (only in A: none; only in B: none)") {
				t.Errorf("stdout does not say which levels were compared:\n%s", stdout)
			}
			rows := readCompareCSV(t, filepath.Join(out, CompareFile))
			decodes := 0
			for _, row := range rows {
				if row["metric"] != "decode_tps_p50" {
					continue
				}
				decodes++
				if !strings.HasPrefix(row["verdict"], tt.verdict) {
					t.Errorf("C=%s: verdict %q, want %q…", row["concurrency"], row["verdict"], tt.verdict)
				}
			}
			if decodes != 3 {
				t.Errorf("%d decode rows in compare.csv, want 3", decodes)
			}
			for _, name := range []string{chart.CompareDecodeName, chart.CompareTradeoffName} {
				for _, ext := range chart.Formats {
					if _, err := os.Stat(filepath.Join(out, name+"."+ext)); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

func TestCompareUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", savedRun}, ExitUsage, "at least two run directories"},
		{[]string{"compare", savedRun, savedRun, "--out", "x"}, ExitUsage, "put flags first"},
		{[]string{"compare", "--resamples", "5", savedRun, savedRun}, ExitUsage, "--resamples"},
		{[]string{"compare", "--confidence", "95", savedRun, savedRun}, ExitUsage, "--confidence"},
		{[]string{"compare", "--out", "x", savedRun, filepath.Join(savedRun, "missing")}, ExitFailure, "summary.json"},
	}
	for _, tt := range tests {
		code, _, stderr := runCLI(t, context.Background(), tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, stderr, tt.code, tt.want)
		}
	}
}

func readCompareCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	return readCSVRows(t, path)
}

func TestWorkloadDiff(t *testing.T) {
	a := json.RawMessage(`{"url":"http://a/v1","model":"m","api":"chat","max_tokens":128,"prompt_source":"default","temperature":null}`)
	b := json.RawMessage(`{"url":"http://b/v1","model":"m","api":"chat","max_tokens":2048,"prompt_source":"default","temperature":0}`)
	if got, want := workloadDiff(a, b), "max_tokens 128 vs 2048; temperature null vs 0"; got != want {
		t.Errorf("workloadDiff = %q, want %q (the URL is what an A/B test changes)", got, want)
	}
	if got := workloadDiff(a, a); got != "" {
		t.Errorf("identical workloads differ: %q", got)
	}
}
