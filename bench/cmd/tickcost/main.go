// Command tickcost measures what toksweep's health probe costs on this
// machine when the process is otherwise idle: it runs the probe's ticker
// (50 ms, the period of sweep's monitor; -period to compare) for a while and prints the CPU time
// it took per tick, as one JSON object. At low concurrency a sweep level is
// idle between tokens, so every tick is a wake-up of its own; bench/run.sh
// uses the figure to separate the probe from the streams at C=1.
//
//	tickcost -d 5s
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"
)

// Result is what tickcost prints.
type Result struct {
	Ticks         int     `json:"ticks"`
	CPUSeconds    float64 `json:"cpu_seconds"`
	WallSeconds   float64 `json:"wall_seconds"`
	CPUPerTickUS  float64 `json:"cpu_per_tick_us"`
	CPUPerSecondS float64 `json:"cpu_per_second_s"` // CPU seconds the probe costs per second of wall time
}

func main() {
	d := flag.Duration("d", 5*time.Second, "how long to tick")
	period := flag.Duration("period", 50*time.Millisecond, "the ticker's period (sweep's monitorTick is 50ms; it was 10ms)")
	flag.Parse()
	c0, t0 := cpuTime(), time.Now()
	t := time.NewTicker(*period)
	n := 0
	for now := range t.C {
		n++
		if now.Sub(t0) >= *d {
			break
		}
	}
	t.Stop()
	cpu, wall := (cpuTime() - c0).Seconds(), time.Since(t0).Seconds()
	b, _ := json.Marshal(Result{
		Ticks: n, CPUSeconds: cpu, WallSeconds: wall,
		CPUPerTickUS: cpu / float64(n) * 1e6, CPUPerSecondS: cpu / wall,
	})
	fmt.Println(string(b))
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fmt.Fprintln(os.Stderr, "tickcost:", err)
		os.Exit(1)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
