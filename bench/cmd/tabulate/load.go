package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
)

// usage is what cmd/measure writes about one process.
type usage struct {
	UserS    float64 `json:"user_s"`
	SysS     float64 `json:"sys_s"`
	MaxRSSKB int64   `json:"maxrss_kb"`
	WallS    float64 `json:"wall_s"`
	ExitCode int     `json:"exit_code"`
	// MarkRSSKB is the peak RSS when toksweep printed its level line: the
	// load and its summary, before the records are written out.
	MarkRSSKB int64 `json:"mark_hwm_kb"`
}

func (u usage) cpu() float64 { return u.UserS + u.SysS }

// rawResult is what bench/rawclient prints.
type rawResult struct {
	OK          int64   `json:"ok"`
	Failed      int64   `json:"failed"`
	Tokens      int64   `json:"tokens"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
	FirstError  string  `json:"first_error"`
}

// lagStats are a set of delays in milliseconds.
type lagStats struct{ N, P50, P99, Max float64 }

func newLagStats(ms []float64) lagStats {
	if len(ms) == 0 {
		return lagStats{}
	}
	slices.Sort(ms)
	return lagStats{float64(len(ms)), report.Percentile(ms, 50), report.Percentile(ms, 99), ms[len(ms)-1]}
}

// point is everything measured at one concurrency, pooled over the runs
// (reps) that run.sh made of each client there.
type point struct {
	C    int
	reps []*rep

	ttftLag    lagStats // client-added delay of the first token chunk
	ttftLater  lagStats // the same, leaving out each worker's first request (the level's start)
	itlLag     lagStats // of every later chunk
	sendGapErr lagStats // |server's gap between sends − nominal ITL|
}

// rep is one run of each client at a concurrency.
type rep struct {
	level report.LevelJSON // toksweep's one level

	ts          usage // toksweep process
	tsTokens    int64 // token chunks received, every record of the level
	tsServerCPU float64
	tsMachCPU   float64 // every process's CPU during the run

	raw          rawResult
	rawUsage     usage
	rawServerCPU float64
	rawMachCPU   float64

	loadBefore string // /proc/loadavg before the pair of runs
	heldBytes  int64  // the memory toksweep's records of the level take
}

// loadPoint reads one c<C> directory written by run.sh: a r<N> directory
// per run.
func loadPoint(dir string, c int, itl time.Duration) (*point, error) {
	p := &point{C: c}
	runs, _ := filepath.Glob(filepath.Join(dir, "r*"))
	slices.Sort(runs)
	var l lags
	for _, d := range runs {
		r, err := loadRep(d)
		if err != nil {
			return nil, err
		}
		if err := r.readRecords(filepath.Join(d, "toksweep", "requests.jsonl"), c, itl, &l); err != nil {
			return nil, err
		}
		p.reps = append(p.reps, r)
	}
	if len(p.reps) == 0 {
		return nil, fmt.Errorf("%s: no runs", dir)
	}
	p.ttftLag, p.ttftLater = newLagStats(l.ttft), newLagStats(l.ttftLater)
	p.itlLag, p.sendGapErr = newLagStats(l.itl), newLagStats(l.gapErr)
	return p, nil
}

func loadRep(dir string) (*rep, error) {
	r := &rep{}
	var sum struct {
		Levels []report.LevelJSON `json:"levels"`
	}
	if err := readJSON(filepath.Join(dir, "toksweep", "summary.json"), &sum); err != nil {
		return nil, err
	}
	if len(sum.Levels) != 1 {
		return nil, fmt.Errorf("%s: %d levels in summary.json, want 1", dir, len(sum.Levels))
	}
	r.level = sum.Levels[0]
	for _, f := range []struct {
		name string
		v    any
	}{{"toksweep.usage.json", &r.ts}, {"raw.out", &r.raw}, {"raw.usage.json", &r.rawUsage}} {
		if err := readJSON(filepath.Join(dir, f.name), f.v); err != nil {
			return nil, err
		}
	}
	r.tsServerCPU = readFloat(filepath.Join(dir, "toksweep.server_cpu"))
	r.tsMachCPU = readFloat(filepath.Join(dir, "toksweep.machine_cpu"))
	r.rawServerCPU = readFloat(filepath.Join(dir, "raw.server_cpu"))
	r.rawMachCPU = readFloat(filepath.Join(dir, "raw.machine_cpu"))
	r.loadBefore = strings.TrimSpace(readText(filepath.Join(dir, "loadavg")))
	return r, nil
}

// lags are the delay samples of a point, in ms.
type lags struct{ ttft, ttftLater, itl, gapErr []float64 }

// readRecords counts the level's tokens and appends the delay figures from
// requests.jsonl to l: SendLag[0] is the first token's client-added delay,
// the rest the later tokens'; the server's own pacing shows in the gaps
// between its send stamps, recovered as ChunkAt[i] − SendLag[i]. The first
// c tickets are each worker's first request, sent all at once as the level
// starts (c connections dialed together).
func (r *rep) readRecords(path string, c int, itl time.Duration, l *lags) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	recs, err := rundir.ReadRecords(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for i := range recs {
		rec := &recs[i]
		r.tsTokens += int64(len(rec.ChunkAt))
		r.heldBytes += int64(recordSize) + 8*int64(len(rec.ChunkAt)+len(rec.SendLag))
		if rec.Warmup || !rec.OK() || len(rec.SendLag) != len(rec.ChunkAt) {
			continue
		}
		for j, lag := range rec.SendLag {
			if j == 0 {
				l.ttft = append(l.ttft, msOf(lag))
				if rec.Seq >= c {
					l.ttftLater = append(l.ttftLater, msOf(lag))
				}
				continue
			}
			l.itl = append(l.itl, msOf(lag))
			gap := (rec.ChunkAt[j] - lag) - (rec.ChunkAt[j-1] - rec.SendLag[j-1])
			l.gapErr = append(l.gapErr, msOf(max(gap-itl, itl-gap)))
		}
	}
	return nil
}

// recordSize is the size of a client.Record, without what its slices and
// strings point to.
const recordSize = int(unsafe.Sizeof(client.Record{}))

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func readText(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

func readFloat(path string) float64 {
	v, _ := strconv.ParseFloat(strings.TrimSpace(readText(path)), 64)
	return v
}

// benchResult is one line of go test -bench output.
type benchResult struct {
	NsChunk, TokS, BytesOp, AllocsOp float64
}

// parseBench reads go test -bench output and returns, per benchmark name
// (without the -GOMAXPROCS suffix), the run with the median ns/chunk.
func parseBench(path string) (map[string]benchResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	all := map[string][]benchResult{}
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(fields[0], "Benchmark"), "-")
		var r benchResult
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			switch fields[i+1] {
			case "ns/chunk":
				r.NsChunk = v
			case "tok/s":
				r.TokS = v
			case "B/op":
				r.BytesOp = v
			case "allocs/op":
				r.AllocsOp = v
			}
		}
		all[name] = append(all[name], r)
	}
	med := map[string]benchResult{}
	for name, rs := range all {
		slices.SortFunc(rs, func(a, b benchResult) int {
			switch {
			case a.NsChunk < b.NsChunk:
				return -1
			case a.NsChunk > b.NsChunk:
				return 1
			}
			return 0
		})
		med[name] = rs[len(rs)/2]
	}
	return med, nil
}
