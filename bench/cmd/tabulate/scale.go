package main

import (
	"bytes"
	"fmt"
	"math"
)

func (r *run) scale(b *bytes.Buffer) {
	fmt.Fprintf(b, "## 4. Scale\n\n")
	fmt.Fprintf(b, "Peak RSS is ru_maxrss from wait4 for the whole process, worst run; per stream = peak RSS ÷ C. *Through the summary* is the peak so far (VmHWM) when toksweep printed its level line: the load and report.Summarize, before the records are written to requests.jsonl. "+
		"*Results held* is the records toksweep keeps until the level ends (%d bytes each plus 8 bytes per chunk offset and per send lag), per stream: it grows with requests × tokens, not with streams. "+
		"In flight is levels.csv's inflight_mean (mean measured requests in flight over the steady-state window; lowest run). Reference: 54–71 KB per stream through net/http.\n\n", recordSize)
	t := &table{head: []string{"C", "requests ok", "failed", "in flight (mean)", "held C", "toksweep peak RSS MB", "KB/stream", "KB/stream through the summary", "results held KB/stream", "raw client peak RSS MB", "raw KB/stream", "raw failed"}}
	for _, p := range r.points {
		ts, raw := p.toksweep(), p.rawClient()
		in := p.inflightMin()
		t.add(fmt.Sprint(p.C), fmt.Sprint(ts.ok), fmt.Sprint(ts.failed), f(in, 1), yesNo(in >= inflightHeld*float64(p.C)),
			f(float64(ts.maxRSSKB)/1024, 1), perStream(ts.maxRSSKB, p.C), perStream(ts.markRSSKB, p.C), f(p.heldKB()/float64(p.C), 1),
			f(float64(raw.maxRSSKB)/1024, 1), perStream(raw.maxRSSKB, p.C), fmt.Sprint(raw.failed))
	}
	t.write(b)
	i := slicesIndex(r.points, scaleC)
	if i < 0 {
		fmt.Fprintf(b, "- C=%d was not run: no verdict.\n\n", scaleC)
		return
	}
	p := r.points[i]
	ts, raw := p.toksweep(), p.rawClient()
	kb := float64(ts.maxRSSKB) / float64(p.C)
	in := p.inflightMin()
	fmt.Fprintf(b, "- C=%d with zero client errors: %s (%d ok, %d failed; raw client %d failed).\n", scaleC, verdict(ts.failed == 0), ts.ok, ts.failed, raw.failed)
	fmt.Fprintf(b, "- Peak RSS ≤ %.0f KB per stream: %s (%.0f KB for the whole process, %s KB through the level's summary; the raw client %s KB).",
		targetKBStream, verdict(kb <= targetKBStream), kb, perStream(ts.markRSSKB, p.C), perStream(raw.maxRSSKB, p.C))
	if kb > targetKBStream {
		fmt.Fprintf(b, " %s", r.memoryCause(p))
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "- The level held %d in flight: %s (inflight_mean %.1f).\n", scaleC, verdict(in >= inflightHeld*scaleC), in)
	for k, rp := range p.reps {
		fmt.Fprintf(b, "- Run %d: client_limited %v", k+1, rp.level.ClientLimited)
		if rp.level.ClientLimited {
			fmt.Fprintf(b, " (%s)", rp.level.ClientLimitedReason)
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n")
	r.memTable(b)
}

// memoryCause splits a missed memory target into its parts.
func (r *run) memoryCause(p *point) string {
	ts, raw := p.toksweep(), p.rawClient()
	c := float64(p.C)
	whole, floor := float64(ts.maxRSSKB)/c, float64(raw.maxRSSKB)/c
	s := fmt.Sprintf("net/http's own streaming state (goroutine stacks, connection buffers, and the heap headroom of GOGC=100), which is all the raw client holds, is already %.0f KB per stream here; toksweep adds %.1f KB per stream of results it must keep until the level ends.",
		floor, p.heldKB()/c)
	if m := r.mem; m != nil && m.Concurrency == p.C && len(m.Phases) >= 2 {
		load, sum := m.Phases[0], m.Phases[1]
		s += fmt.Sprintf(" The breakdown below (same level, one process) shows the load itself peaking at %.0f KB per stream; then report.Summarize allocates %.0f MB (%.0f bytes per token) and lifts the peak to %.0f KB per stream, which is most of the gap to the %.0f KB toksweep reaches.",
			float64(load.HWMKB)/c, sum.AllocMB, sum.AllocMB*(1<<20)/float64(max(m.Tokens, 1)), float64(sum.HWMKB)/c, whole)
	}
	return s
}

// memTable renders levelmem's phases.
func (r *run) memTable(b *bytes.Buffer) {
	m := r.mem
	if m == nil {
		return
	}
	c := float64(m.Concurrency)
	fmt.Fprintf(b, "Where the memory goes at C=%d (bench/cmd/levelmem: one level through client.New and sweep.Run as `toksweep sweep` runs it, then report's two steps, in one process; %d requests, %d tokens, %d failed):\n\n",
		m.Concurrency, m.Requests, m.Tokens, m.Failed)
	t := &table{head: []string{"after", "peak RSS so far MB", "KB/stream", "heap in use MB", "stacks MB", "allocated in the step MB"}}
	for _, ph := range m.Phases {
		t.add(ph.Name, f(float64(ph.HWMKB)/1024, 1), f(float64(ph.HWMKB)/c, 0), f(ph.HeapMB, 1), f(ph.StackMB, 1), f(ph.AllocMB, 1))
	}
	t.write(b)
}

func perStream(kb int64, c int) string {
	if kb <= 0 {
		return "-"
	}
	return f(float64(kb)/float64(c), 0)
}

func (p *point) inflightMin() float64 {
	in := math.Inf(1)
	for _, r := range p.reps {
		if r.level.InflightMean == nil {
			return math.NaN()
		}
		in = min(in, *r.level.InflightMean)
	}
	return in
}

// heldKB is the largest run's results held, in KB.
func (p *point) heldKB() float64 {
	var kb float64
	for _, r := range p.reps {
		kb = max(kb, float64(r.heldBytes)/1024)
	}
	return kb
}

func (r *run) health(b *bytes.Buffer) {
	fmt.Fprintf(b, "## client_limited, per level\n\n")
	fmt.Fprintf(b, "What toksweep reported about itself in each run (summary.json health; thresholds in docs/metrics.md).\n\n")
	t := &table{head: []string{"C", "run", "client_limited", "reason", "client CPU busy", "issue lag max ms", "timer late p99 ms", "timer late max ms", "TTFT p50 ms", "ITL p50 ms", "load avg before"}}
	for _, p := range r.points {
		for k, rp := range p.reps {
			h := rp.level.Health
			busy := math.NaN()
			if h.WallSeconds > 0 && h.GOMAXPROCS > 0 {
				busy = h.CPUSeconds / (h.WallSeconds * float64(h.GOMAXPROCS))
			}
			t.add(fmt.Sprint(p.C), fmt.Sprint(k+1), fmt.Sprint(rp.level.ClientLimited), orDash(rp.level.ClientLimitedReason), pct(busy),
				f(msOf(h.IssueLagMax), 2), f(msOf(h.TimerLateP99), 2), f(msOf(h.TimerLateMax), 1),
				opt(rp.level.TTFTP50Ms), opt(rp.level.ITLP50Ms), rp.loadBefore)
		}
	}
	t.write(b)
}
