package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Crafted records are refused when read back, in one line naming the
// line: a negative start (a TTFT p50 of −9.2e12 ms), an end before the
// start, a prompt_tokens of 9.2e18 (3.7e21 tok/s) (issue 25, item 15).
func TestRecordsAreValidatedWhenRead(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		`{"concurrency":1,"start_ns":-9200000000000000000,"end_ns":5}`:                  "negative instant",
		`{"concurrency":1,"start_ns":10,"first_token_ns":-1,"end_ns":50}`:               "negative instant",
		`{"concurrency":1,"start_ns":100,"end_ns":50}`:                                  "ends before it starts",
		`{"concurrency":1,"start_ns":1,"end_ns":5,"prompt_tokens":9200000000000000000}`: "prompt_tokens 9200000000000000000, outside 0 to 16777216",
		`{"concurrency":1,"start_ns":1,"end_ns":5,"completion_tokens":-3}`:              "negative token count",
	} {
		_, err := ReadRecords(strings.NewReader(`{"concurrency":1,"start_ns":1,"end_ns":2}` + "\n" + line + "\n"))
		if err == nil || !strings.Contains(err.Error(), "line 2: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want line 2 refused: %s", line, err, want)
		}
	}
}

// A summary.json that lists a level three times counts its records once,
// with a warning (they were counted three times).
func TestDuplicateLevelKeysCountOnce(t *testing.T) {
	t.Parallel()
	dir := copySmallRun(t)
	run, err := ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := len(run.Levels[0].Records)
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	must(t, err)
	s := string(b)
	i := strings.LastIndex(s, `"levels": [`) + len(`"levels": [`)
	j := strings.Index(s[i:], "\n    }") + i + len("\n    }")
	first := s[i:j]
	crafted := s[:j] + "," + first + "," + first + s[j:]
	must(t, os.WriteFile(filepath.Join(dir, SummaryFile), []byte(crafted), 0o644))
	run, err = ReadRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range run.Levels {
		if l.Concurrency == run.Levels[0].Concurrency && l.Repeat == run.Levels[0].Repeat {
			n++
		}
	}
	if n != 1 || len(run.Levels[0].Records) != want || len(run.Warnings) == 0 || !strings.Contains(strings.Join(run.Warnings, "\n"), "more than once") {
		t.Errorf("the level read %d times with %d records (want once, %d), warnings %q", n, len(run.Levels[0].Records), want, run.Warnings)
	}
}
