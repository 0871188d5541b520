package rundir

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// Records handed to RunDir.AddRecord (from many goroutines, as the sweep's
// workers do) wait in the level file: requests.jsonl gains them only at
// AddLevel, whole; LevelRecords reads them back, anew on each call, and
// the level file starts over for the next level.
func TestRunDirStreamsRecords(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	d, err := OpenRunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var onDisk []client.Record
	for _, held := range goldenLevels()[:2] {
		var wg sync.WaitGroup
		for i := range held.Records {
			wg.Go(func() { d.AddRecord(&held.Records[i]) })
		}
		wg.Wait()
		checkRequests(t, filepath.Join(dir, RequestsFile), onDisk) // not yet
		streamed := held
		streamed.Records, streamed.Source = nil, d.LevelRecords()
		for pass := range 2 {
			var got []client.Record
			for r := range streamed.All() {
				got = append(got, *r)
			}
			if !sameRecords(got, held.Records) {
				t.Fatalf("pass %d read back %d records that differ from the %d written", pass, len(got), len(held.Records))
			}
		}
		s := report.Summarize(streamed, report.Settings{})
		if want := report.Summarize(held, report.Settings{}); s.RequestsOK != want.RequestsOK || s.TTFTP99 != want.TTFTP99 || s.WindowEnd != want.WindowEnd {
			t.Errorf("summarised from the level file: ok %d ttft p99 %v window end %v; from memory %d %v %v",
				s.RequestsOK, s.TTFTP99, s.WindowEnd, want.RequestsOK, want.TTFTP99, want.WindowEnd)
		}
		if err := d.AddLevel(streamed, s); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, RequestsFile))
		if err != nil {
			t.Fatal(err)
		}
		all, err := ReadRecords(f)
		f.Close()
		if err != nil || !sameRecords(all[len(onDisk):], held.Records) {
			t.Fatalf("requests.jsonl after the level: %d records (err %v), want %d more", len(all), err, len(held.Records))
		}
		onDisk = all
		if fi, err := os.Stat(filepath.Join(dir, LevelFile)); err != nil || fi.Size() != 0 {
			t.Fatalf("level file after AddLevel: %v, %v; want it empty", fi, err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LevelFile)); !os.IsNotExist(err) {
		t.Errorf("level file after Close: %v, want it removed", err)
	}
}

// A level file that cannot be read back fails AddLevel with one line, and
// requests.jsonl is left as it was.
func TestRunDirLevelFileLost(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenRunDir(filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	l := goldenLevels()[0]
	for i := range l.Records {
		d.AddRecord(&l.Records[i])
	}
	if err := os.Remove(filepath.Join(dir, "run", LevelFile)); err != nil {
		t.Fatal(err)
	}
	streamed := sweep.Level{Concurrency: l.Concurrency, Source: d.LevelRecords()}
	err = d.AddLevel(streamed, report.Summarize(streamed, report.Settings{}))
	if err == nil || len(err.Error()) == 0 || slices.Contains([]byte(err.Error()), '\n') {
		t.Fatalf("AddLevel with the level file gone: %v, want a one-line error", err)
	}
	checkRequests(t, filepath.Join(dir, "run", RequestsFile), nil)
}

// sameRecords reports whether a and b hold the same records in any order
// (the sweep's workers finish in any order).
func sameRecords(a, b []client.Record) bool {
	key := func(r client.Record) int { return r.Seq }
	sorted := func(rs []client.Record) []client.Record {
		return slices.SortedFunc(slices.Values(rs), func(x, y client.Record) int { return cmp.Compare(key(x), key(y)) })
	}
	return len(a) == len(b) && slices.EqualFunc(sorted(a), sorted(b), func(x, y client.Record) bool {
		return x.Seq == y.Seq && x.Start == y.Start && slices.Equal(x.ChunkAt, y.ChunkAt) && x.ErrorClass == y.ErrorClass
	})
}
