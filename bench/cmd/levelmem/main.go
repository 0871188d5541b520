// Command levelmem runs one sweep level the way `toksweep sweep` does
// (client.New, sweep.Run, each record to a run directory's level file as it
// finishes) and reports where its memory goes, phase by phase: the peak RSS
// (VmHWM) after the load, after report.Summarize (two passes over the level
// file), and after appending the level to requests.jsonl
// (rundir.RunDir.AddLevel), with the Go heap's figures at each point.
// bench/run.sh runs it at C=1000 to explain toksweep's peak RSS per stream.
// The run directory is a temporary one, removed at the end.
//
//	levelmem -url http://127.0.0.1:8000/v1 -model sim -c 1000 -requests 3000 -max-tokens 200
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/toksweep/toksweep/bench/internal/procstat"
	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode/closed"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/rundir"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

// Phase is the memory after one phase.
type Phase struct {
	Name    string  `json:"name"`
	HWMKB   int64   `json:"hwm_kb"`      // peak RSS so far
	HeapMB  float64 `json:"heap_mb"`     // heap in use now
	StackMB float64 `json:"stack_mb"`    // goroutine stacks in use now
	AllocMB float64 `json:"alloc_mb"`    // allocated during the phase
	NumGC   uint32  `json:"num_gc_done"` // collections so far
}

// Result is what levelmem prints.
type Result struct {
	Concurrency int       `json:"concurrency"`
	Requests    int       `json:"requests"`
	Failed      int       `json:"failed"`
	Tokens      int       `json:"tokens"`
	Phases      []Phase   `json:"phases"`
	Mid         *Snapshot `json:"mid_level,omitempty"` // -profile-at
}

// Snapshot is the memory at one instant during the load.
type Snapshot struct {
	Goroutines int     `json:"goroutines"`
	RSSKB      int64   `json:"rss_kb"`     // VmRSS now
	HeapMB     float64 `json:"heap_mb"`    // HeapInuse
	LiveMB     float64 `json:"live_mb"`    // HeapAlloc: live and not yet swept
	GoalMB     float64 `json:"goal_mb"`    // NextGC, the heap goal
	StackMB    float64 `json:"stack_mb"`   // StackInuse
	SysMB      float64 `json:"sys_mb"`     // Sys: all the runtime obtained from the OS
	ReleasedMB float64 `json:"release_mb"` // HeapReleased
	Error      string  `json:"error,omitempty"`
}

// snapshot reads the runtime's figures now and, if path is set, writes a
// heap profile there (after a GC, so inuse_space is what is live).
func snapshot(path string) *Snapshot {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s := &Snapshot{Goroutines: runtime.NumGoroutine(), RSSKB: procstat.VmRSS("self"), HeapMB: mb(m.HeapInuse),
		LiveMB: mb(m.HeapAlloc), GoalMB: mb(m.NextGC), StackMB: mb(m.StackInuse), SysMB: mb(m.Sys), ReleasedMB: mb(m.HeapReleased)}
	if path != "" {
		runtime.GC() // the profile shows the heap as of the last GC
		f, err := os.Create(path)
		if err == nil {
			err = pprof.WriteHeapProfile(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			s.Error = err.Error()
		}
	}
	return s
}

func main() {
	url := flag.String("url", "", "base URL (required)")
	model := flag.String("model", "", "model name (required)")
	c := flag.Int("c", 1000, "concurrency")
	n := flag.Int("requests", 3000, "measured requests")
	maxTokens := flag.Int("max-tokens", 200, "max_tokens")
	profAt := flag.Duration("profile-at", 0, "take a mid-level snapshot this long after the start (0: none)")
	heapProf := flag.String("heap-profile", "", "with -profile-at, write a pprof heap profile to this file")
	flag.Parse()
	if *url == "" || *model == "" {
		flag.Usage()
		os.Exit(2)
	}
	var snap chan *Snapshot
	if *profAt > 0 {
		if *heapProf != "" {
			runtime.MemProfileRate = 4 << 10 // fine enough for objects of a few KiB per stream
		}
		snap = make(chan *Snapshot, 1)
		go func() { time.Sleep(*profAt); snap <- snapshot(*heapProf) }()
	}
	res, err := run(*url, *model, *c, *n, *maxTokens)
	if snap != nil && err == nil {
		select {
		case res.Mid = <-snap:
		default: // the level ended before -profile-at
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "levelmem:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
}

func run(url, model string, c, n, maxTokens int) (*Result, error) {
	cl, err := client.New(client.Config{BaseURL: url, Model: model, MaxTokens: maxTokens, MaxConns: c})
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "levelmem-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir, err := rundir.OpenRunDir(filepath.Join(tmp, "run"))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	res := &Result{Concurrency: c, Requests: n}
	var prev runtime.MemStats
	runtime.ReadMemStats(&prev)
	phase := func(name string) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		res.Phases = append(res.Phases, Phase{
			Name: name, HWMKB: procstat.VmHWM("self"), HeapMB: mb(m.HeapInuse), StackMB: mb(m.StackInuse),
			AllocMB: mb(m.TotalAlloc - prev.TotalAlloc), NumGC: m.NumGC,
		})
		prev = m
	}
	cfg := sweep.Config{Load: closed.Load{Levels: []int{c}}, Requests: n, Prompt: sweep.Cycle([]client.Prompt{{Text: sim.EssayPrompt}}),
		Sink: &countingSink{RunDir: dir, res: res}}
	err = sweep.Run(context.Background(), cfg, cl, func(l sweep.Level) error {
		phase("load (sweep.Run)")
		s := report.Summarize(l, report.Settings{})
		phase("report.Summarize")
		if err := dir.AddLevel(l, s); err != nil {
			return err
		}
		phase("rundir.RunDir.AddLevel")
		return nil
	})
	return res, err
}

// countingSink is the run directory as the sweep's record sink, counting
// the tokens and failures of the records it takes.
type countingSink struct {
	*rundir.RunDir
	mu  sync.Mutex
	res *Result
}

func (s *countingSink) AddRecord(r *client.Record) {
	s.RunDir.AddRecord(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Tokens += len(r.ChunkAt)
	if !r.OK() {
		s.res.Failed++
	}
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
