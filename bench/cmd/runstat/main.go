// Command runstat prints one tab-separated line of figures for one client
// run of bench/scale.sh: a toksweep run directory (-run) or the raw
// client's JSON (-raw), with its bench/cmd/measure usage (-usage).
//
//	runstat -label toksweep -run DIR -usage FILE
//	runstat -label raw -raw FILE -usage FILE
//
// Columns: label, C, requests ok, failed, tokens, client CPU s over the
// level (toksweep's health.cpu_seconds; the raw client's load phase), CPU
// per 1k tokens, process peak RSS KB, KB per stream, in-flight mean, ITL p50
// and p99 ms (toksweep's summary), and the client-added delay from the
// simulator's send stamps (arrival − send; ms): first token p99, later
// tokens p50, p99 and max. A figure a run does not have is "-".
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toksweep/toksweep/internal/pct"
	"github.com/toksweep/toksweep/rundir"
)

type usage struct {
	MaxRSSKB int64 `json:"maxrss_kb"`
}

type raw struct {
	Concurrency int     `json:"concurrency"`
	OK          int     `json:"ok"`
	Failed      int     `json:"failed"`
	Tokens      int     `json:"tokens"`
	CPUSeconds  float64 `json:"cpu_seconds"`
}

type summary struct {
	Levels []struct {
		Concurrency  int     `json:"concurrency"`
		OK           int     `json:"requests_ok"`
		Failed       int     `json:"requests_failed"`
		InflightMean float64 `json:"inflight_mean"`
		ITLP50       float64 `json:"itl_p50_ms"`
		ITLP99       float64 `json:"itl_p99_ms"`
		Health       struct {
			CPUSeconds float64 `json:"cpu_seconds"`
		} `json:"health"`
	} `json:"levels"`
}

func main() {
	label := flag.String("label", "", "first column")
	run := flag.String("run", "", "toksweep run directory")
	rawPath := flag.String("raw", "", "the raw client's JSON output")
	usagePath := flag.String("usage", "", "bench/cmd/measure's JSON")
	flag.Parse()
	if err := line(*label, *run, *rawPath, *usagePath); err != nil {
		fmt.Fprintln(os.Stderr, "runstat:", err)
		os.Exit(1)
	}
}

func line(label, run, rawPath, usagePath string) error {
	var u usage
	if err := readJSON(usagePath, &u); err != nil {
		return err
	}
	cols := []string{label}
	dash := "-"
	var c, tokens int
	var cpu float64
	if rawPath != "" {
		var r raw
		if err := readJSON(rawPath, &r); err != nil {
			return err
		}
		c, tokens, cpu = r.Concurrency, r.Tokens, r.CPUSeconds
		cols = append(cols, fmt.Sprint(c), fmt.Sprint(r.OK), fmt.Sprint(r.Failed), fmt.Sprint(tokens))
		cols = append(cols, perTok(cpu, tokens, c, u)...)
		cols = append(cols, dash, dash, dash, dash, dash, dash, dash)
		fmt.Println(strings.Join(cols, "\t"))
		return nil
	}
	var s summary
	if err := readJSON(filepath.Join(run, "summary.json"), &s); err != nil {
		return err
	}
	if len(s.Levels) != 1 {
		return fmt.Errorf("%s: %d levels, want 1", run, len(s.Levels))
	}
	l := s.Levels[0]
	first, later, n, err := lags(filepath.Join(run, "requests.jsonl"))
	if err != nil {
		return err
	}
	c, tokens, cpu = l.Concurrency, n, l.Health.CPUSeconds
	cols = append(cols, fmt.Sprint(c), fmt.Sprint(l.OK), fmt.Sprint(l.Failed), fmt.Sprint(tokens))
	cols = append(cols, perTok(cpu, tokens, c, u)...)
	cols = append(cols, fmt.Sprintf("%.1f", l.InflightMean), fmt.Sprintf("%.3f", l.ITLP50), fmt.Sprintf("%.3f", l.ITLP99),
		p(first, 99), p(later, 50), p(later, 99), p(later, 100))
	fmt.Println(strings.Join(cols, "\t"))
	return nil
}

func perTok(cpu float64, tokens, c int, u usage) []string {
	per := "-"
	if tokens > 0 {
		per = fmt.Sprintf("%.4f", cpu/float64(tokens)*1000)
	}
	return []string{fmt.Sprintf("%.3f", cpu), per, fmt.Sprint(u.MaxRSSKB), fmt.Sprintf("%.1f", float64(u.MaxRSSKB)/float64(max(c, 1)))}
}

// lags reads the client-added delays of the successful, measured requests:
// the first token's and the later ones', in ms, and counts token chunks.
func lags(path string) (first, later []float64, tokens int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, 0, err
	}
	defer f.Close()
	recs, err := rundir.ReadRecords(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	for i := range recs {
		r := &recs[i]
		if r.Warmup {
			continue
		}
		tokens += len(r.ChunkAt)
		if !r.OK() {
			continue
		}
		for j, lag := range r.SendLag {
			ms := float64(lag) / float64(time.Millisecond)
			if j == 0 {
				first = append(first, ms)
			} else {
				later = append(later, ms)
			}
		}
	}
	slices.Sort(first)
	slices.Sort(later)
	return first, later, tokens, nil
}

func p(sorted []float64, q float64) string {
	if len(sorted) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", pct.Percentile(sorted, q))
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
