// Command scrapecost measures what the in-level /metrics sampling costs the
// client: it runs promscrape.Sampler (with the transport sweep uses) against
// an endpoint for a while, with nothing else in the process, and prints the
// process's CPU time per scrape as one JSON object. Every scrape is a
// wake-up of its own, as it is in a sweep level between tokens, so the
// figure includes the scheduler's and the transport's goroutine hand-offs
// that a back-to-back Go benchmark does not see.
//
//	scrapecost -url http://127.0.0.1:PORT/metrics -interval 10ms -d 10s [-cpuprofile F]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/toksweep/toksweep/client/promscrape"
)

// Result is what scrapecost prints.
type Result struct {
	Scrapes        int     `json:"scrapes"` // in-level scrapes, plus the opening and closing ones
	Failures       int     `json:"failures"`
	CPUSeconds     float64 `json:"cpu_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
	CPUPerScrapeUS float64 `json:"cpu_per_scrape_us"`
}

func main() {
	url := flag.String("url", "", "the metrics endpoint (serve-sim's http://127.0.0.1:PORT/metrics)")
	d := flag.Duration("d", 10*time.Second, "how long to sample")
	interval := flag.Duration("interval", 10*time.Millisecond, "time between two scrapes")
	prof := flag.String("cpuprofile", "", "write a CPU profile here")
	flag.Parse()
	if *url == "" {
		fail(fmt.Errorf("-url is required"))
	}
	s := &promscrape.Sampler{URL: *url, Interval: *interval, Client: &http.Client{Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: 2, // as app.findMetrics sets it
	}}}
	if _, err := s.Scrape(context.Background()); err != nil { // the pre-flight scrape, outside the figure
		fail(err)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	c0, t0 := cpuTime(), time.Now()
	stop := s.Start(context.Background())
	time.Sleep(*d)
	m := stop()
	cpu, wall := (cpuTime() - c0).Seconds(), time.Since(t0).Seconds()
	n := m.Scrapes + 2
	b, _ := json.Marshal(Result{
		Scrapes: n, Failures: m.Failures, CPUSeconds: cpu, WallSeconds: wall,
		CPUPerScrapeUS: cpu / float64(n) * 1e6,
	})
	fmt.Println(string(b))
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "scrapecost:", err)
	os.Exit(1)
}
