package rundir

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// The fuzz targets of the files a user may be handed (issue 25): a crafted
// requests.jsonl, summary.json or shard.json must give an error or data,
// never a panic, a hang or unbounded memory. Their seeds (the saved runs of
// ../testdata/runs and the f.Add lines) run in every plain go test.

func seedFile(f *testing.F, path string) {
	f.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}

// FuzzRecordLines checks that any requests.jsonl decodes to records or an
// error, and that every decoded record encodes again and decodes to the
// same figures.
func FuzzRecordLines(f *testing.F) {
	seedFile(f, filepath.Join("..", "testdata", "runs", "small", RequestsFile))
	for _, s := range []string{
		`{"concurrency":1,"start_ms":-9.2e15,"chunk_at_ms":[1,2,3]}`,
		`{"chunk_at_ms":[1e400]}` + "\n" + `{"chunk_at_ms":[`,
		`{"prompt_tokens":9223372036854775807,"completion_tokens":-1}`,
		"\n\n{}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := ReadRecords(bytes.NewReader(b))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := writeRecords(&out, recs); err != nil {
			return // a record no JSON holds (e.g. NaN) is refused, not written
		}
		again, err := ReadRecords(&out)
		if err != nil || len(again) != len(recs) {
			t.Fatalf("re-encoded records do not read back: %d of %d (%v)", len(again), len(recs), err)
		}
		for i := range recs {
			a, b := recs[i], again[i]
			if a.Start != b.Start || a.End != b.End || a.CompletionTokens != b.CompletionTokens || len(a.ChunkAt) != len(b.ChunkAt) {
				t.Fatalf("record %d changed on the way round:\n%+v\n%+v", i, a, b)
			}
		}
		_ = report.Summarize(levelOf(recs), report.Settings{})
	})
}

// FuzzSummaryJSON checks that any summary.json decodes or fails, and that a
// decoded one summarises and encodes without a panic.
func FuzzSummaryJSON(f *testing.F) {
	seedFile(f, filepath.Join("..", "testdata", "runs", "small", SummaryFile))
	seedFile(f, filepath.Join("..", "testdata", "runs", "slo", SummaryFile))
	f.Add([]byte(`{"config":{"reading_speed":1e308,"percentiles":[-1,101,50]},"levels":[{"concurrency":-1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		sum, err := decodeSummary(b)
		if err != nil {
			return
		}
		for _, lj := range sum.Levels {
			_ = recordedVerdict(lj)
		}
		var out bytes.Buffer
		_ = report.WriteSummaryJSON(&out, sum)
	})
}

// FuzzShardJSON checks that any shard.json decodes or fails, and that
// CheckShards on copies of it answers (an error or nil) without a panic or
// a long walk.
func FuzzShardJSON(f *testing.F) {
	f.Add([]byte(`{"shard":0,"shards":2,"start_at":"2030-01-01T00:00:00Z","level_duration":"1s","grace":"1s","levels":[4],"workers":[2],"epoch_unix_ns":1893456000000000000,"clock":{"known":true,"synced":true,"est_error_us":100}}`))
	f.Add([]byte(`{"shard":5,"shards":200000000,"epoch_unix_ns":9223372036854775807,"wall_minus_mono_ns":-9223372036854775808,"clock":{"known":true,"synced":true,"est_error_us":9300000000000000}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := decodeShardInfo(b)
		if err != nil {
			return
		}
		_ = info.Clock.Error()
		a, c := info, info
		c.Index = a.Index + 1
		_ = CheckShards([]Shard{{Info: a}, {Info: c}}, false)
		_ = CheckShards([]Shard{{Info: a}}, true)
	})
}

func levelOf(recs []client.Record) sweep.Level {
	return sweep.Level{Concurrency: 1, Records: recs}
}
