// Command tabulate turns the raw output of bench/run.sh (a work directory)
// into bench/results.md: the machine, the setup, the four benchmarks next
// to their floors and reference figures, and a verdict on every target with
// the figures behind it. It also prints the document on stdout.
//
//	tabulate -work DIR -itl 10ms -out bench/results.md
//
// The work directory holds meta.txt ("key: value" lines describing the
// run), gotest.txt (go test -bench output) and one c<C> directory per
// concurrency with toksweep's run directory, the raw client's result and
// the rusage of both (see run.sh).
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	work := flag.String("work", "", "run.sh's work directory (required)")
	out := flag.String("out", "", "write the markdown here too")
	itl := flag.Duration("itl", 10*time.Millisecond, "the simulator's nominal inter-token gap")
	flag.Parse()
	if *work == "" {
		flag.Usage()
		os.Exit(2)
	}
	doc, err := build(*work, *itl)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tabulate:", err)
		os.Exit(1)
	}
	os.Stdout.Write(doc)
	if *out != "" {
		if err := os.WriteFile(*out, doc, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "tabulate:", err)
			os.Exit(1)
		}
	}
}

// run is everything run.sh measured.
type run struct {
	meta   [][2]string
	bench  map[string]benchResult
	points []*point
	nproc  int
	itl    time.Duration
	tick   tickCost
	mem    *levelMem // bench/cmd/levelmem's output, if any
}

// levelMem is what bench/cmd/levelmem prints.
type levelMem struct {
	Concurrency int `json:"concurrency"`
	Requests    int `json:"requests"`
	Failed      int `json:"failed"`
	Tokens      int `json:"tokens"`
	Phases      []struct {
		Name    string  `json:"name"`
		HWMKB   int64   `json:"hwm_kb"`
		HeapMB  float64 `json:"heap_mb"`
		StackMB float64 `json:"stack_mb"`
		AllocMB float64 `json:"alloc_mb"`
	} `json:"phases"`
}

// tickCost is what bench/cmd/tickcost prints.
type tickCost struct {
	CPUPerTickUS  float64 `json:"cpu_per_tick_us"`
	CPUPerSecondS float64 `json:"cpu_per_second_s"`
}

func build(work string, itl time.Duration) ([]byte, error) {
	r := &run{nproc: runtime.NumCPU(), itl: itl}
	r.meta = readMeta(filepath.Join(work, "meta.txt"))
	_ = readJSON(filepath.Join(work, "tickcost.json"), &r.tick) // optional
	var mem levelMem
	if readJSON(filepath.Join(work, "levelmem.json"), &mem) == nil && len(mem.Phases) > 0 {
		r.mem = &mem
	}
	var err error
	if r.bench, err = parseBench(filepath.Join(work, "gotest.txt")); err != nil {
		return nil, err
	}
	dirs, _ := filepath.Glob(filepath.Join(work, "c*"))
	for _, d := range dirs {
		c, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), "c"))
		if err != nil {
			continue
		}
		p, err := loadPoint(d, c, itl)
		if err != nil {
			return nil, err
		}
		r.points = append(r.points, p)
	}
	slices.SortFunc(r.points, func(a, b *point) int { return a.C - b.C })

	var b bytes.Buffer
	r.header(&b)
	r.hotPath(&b)
	r.cpu(&b)
	r.timing(&b)
	r.scale(&b)
	r.health(&b)
	return b.Bytes(), nil
}

func readMeta(path string) [][2]string {
	var kv [][2]string
	sc := bufio.NewScanner(strings.NewReader(readText(path)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ": "); ok {
			kv = append(kv, [2]string{k, v})
		}
	}
	return kv
}

// machine describes the host from /proc and the Go runtime.
func (r *run) machine() [][2]string {
	model := "unknown"
	for _, line := range strings.Split(readText("/proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			model = strings.TrimSpace(v)
			break
		}
	}
	mem := "unknown"
	for _, line := range strings.Split(readText("/proc/meminfo"), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64); err == nil {
				mem = fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	return [][2]string{
		{"CPU", fmt.Sprintf("%s, nproc %d", model, r.nproc)},
		{"Memory", mem},
		{"Kernel", strings.TrimSpace(readText("/proc/sys/kernel/osrelease"))},
		{"Go", fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)},
	}
}

func (r *run) header(b *bytes.Buffer) {
	fmt.Fprintf(b, "# toksweep performance: results\n\n")
	fmt.Fprintf(b, "Written by `bench/run.sh` (see bench/README.md); every figure below was measured in the same run, floors included. ")
	fmt.Fprintf(b, "Benchmarks are figures, not pass/fail; each target gets a verdict with the figures behind it.\n\n")
	fmt.Fprintf(b, "## Machine and run\n\n")
	t := &table{head: []string{"", ""}}
	for _, kv := range append(r.machine(), r.meta...) {
		t.add(kv[0], kv[1])
	}
	t.write(b)
}

// table is a markdown table.
type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(b *bytes.Buffer) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", "\\|") + " |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	sep := make([]string, len(t.head))
	for i := range sep {
		sep[i] = "---"
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}

// verdict renders a target check.
func verdict(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**missed**"
}

func f(v float64, decimals int) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
