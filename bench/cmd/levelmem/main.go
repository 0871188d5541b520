// Command levelmem runs one sweep level the way `toksweep sweep` does
// (client.New, sweep.Run) and reports where its memory goes, phase by phase:
// the peak RSS (VmHWM) after the load, after report.Summarize, and after
// encoding the level's requests.jsonl (report.WriteRecords, as the run
// directory does), with the Go heap's figures at each point. bench/run.sh
// runs it at C=1000 to explain toksweep's peak RSS per stream.
//
//	levelmem -url http://127.0.0.1:8000/v1 -model sim -c 1000 -requests 3000 -max-tokens 200
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	"github.com/toksweep/toksweep/bench/internal/procstat"
	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sweep"
)

// Phase is the memory after one phase.
type Phase struct {
	Name      string  `json:"name"`
	HWMKB     int64   `json:"hwm_kb"`      // peak RSS so far
	HeapMB    float64 `json:"heap_mb"`     // heap in use now
	StackMB   float64 `json:"stack_mb"`    // goroutine stacks in use now
	AllocMB   float64 `json:"alloc_mb"`    // allocated during the phase
	RecordsKB float64 `json:"records_kb"`  // what the level's records hold
	NumGC     uint32  `json:"num_gc_done"` // collections so far
}

// Result is what levelmem prints.
type Result struct {
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"`
	Failed      int     `json:"failed"`
	Tokens      int     `json:"tokens"`
	Phases      []Phase `json:"phases"`
}

func main() {
	url := flag.String("url", "", "base URL (required)")
	model := flag.String("model", "", "model name (required)")
	c := flag.Int("c", 1000, "concurrency")
	n := flag.Int("requests", 3000, "measured requests")
	maxTokens := flag.Int("max-tokens", 200, "max_tokens")
	flag.Parse()
	if *url == "" || *model == "" {
		flag.Usage()
		os.Exit(2)
	}
	res, err := run(*url, *model, *c, *n, *maxTokens)
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
	res := &Result{Concurrency: c, Requests: n}
	var prev runtime.MemStats
	runtime.ReadMemStats(&prev)
	phase := func(name string, recs []client.Record) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		var held int64
		for i := range recs {
			held += recordSize + 8*int64(cap(recs[i].ChunkAt)+cap(recs[i].SendLag))
		}
		res.Phases = append(res.Phases, Phase{
			Name: name, HWMKB: procstat.VmHWM("self"), HeapMB: mb(m.HeapInuse), StackMB: mb(m.StackInuse),
			AllocMB: mb(m.TotalAlloc - prev.TotalAlloc), RecordsKB: float64(held) / 1024, NumGC: m.NumGC,
		})
		prev = m
	}
	cfg := sweep.Config{Levels: []int{c}, Requests: n, Prompt: sweep.Cycle([]client.Prompt{{Text: sim.EssayPrompt}})}
	err = sweep.Run(context.Background(), cfg, cl, func(l sweep.Level) error {
		for i := range l.Records {
			res.Tokens += len(l.Records[i].ChunkAt)
			if !l.Records[i].OK() {
				res.Failed++
			}
		}
		phase("load (sweep.Run)", l.Records)
		_ = report.Summarize(l)
		phase("report.Summarize", l.Records)
		if err := report.WriteRecords(io.Discard, l.Records); err != nil {
			return err
		}
		phase("report.WriteRecords", l.Records)
		return nil
	})
	return res, err
}

// recordSize is the size of a client.Record without what it points to.
const recordSize = int64(unsafe.Sizeof(client.Record{}))

func mb(b uint64) float64 { return float64(b) / (1 << 20) }
