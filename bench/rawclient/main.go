// Command rawclient is the floor toksweep's client cost is measured against:
// about the least a Go program can do to drive C closed-loop streams through
// net/http. Each of C workers posts the same prebuilt body, reads the
// response line by line with a reused bufio.Reader, counts the lines that
// carry content, and starts the next request when it sees [DONE]. It takes
// no timestamps, keeps no records and parses no JSON; it recognises a token
// chunk by the substring the simulator writes for one (`"delta":{"content":"`).
//
// It prints one JSON object: requests, tokens, errors, and its own CPU time
// (getrusage) and wall time over the load phase only, so that the figure
// compares with toksweep's per-level health.cpu_seconds.
//
//	rawclient -url http://127.0.0.1:8000/v1 -model sim -c 100 -requests 300 -max-tokens 200
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultPrompt is toksweep's default prompt (sim.EssayPrompt), so that both
// clients send the same request.
const defaultPrompt = "Write a very long and detailed essay about the history of computing, " +
	"from Charles Babbage to modern AI. Include at least 10 major milestones."

// Result is what rawclient prints.
type Result struct {
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"`
	OK          int64   `json:"ok"`
	Failed      int64   `json:"failed"`
	Tokens      int64   `json:"tokens"` // content chunks received, over every request
	CPUSeconds  float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
	MaxRSSKB    int64   `json:"maxrss_kb"`
	FirstError  string  `json:"first_error,omitempty"`
}

type config struct {
	url, model, prompt string
	c, requests, max   int
	timeout            time.Duration
}

func main() {
	var cfg config
	flag.StringVar(&cfg.url, "url", "http://127.0.0.1:8000/v1", "base URL")
	flag.StringVar(&cfg.model, "model", "", "model name (required)")
	flag.StringVar(&cfg.prompt, "prompt", defaultPrompt, "user message")
	flag.IntVar(&cfg.c, "c", 1, "concurrency: closed-loop workers")
	flag.IntVar(&cfg.requests, "requests", 8, "requests in all")
	flag.IntVar(&cfg.max, "max-tokens", 128, "max_tokens per request")
	flag.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "bound on the whole run")
	flag.Parse()
	if cfg.model == "" || cfg.c < 1 || cfg.requests < 1 || cfg.max < 1 {
		flag.Usage()
		os.Exit(2)
	}
	res, err := run(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rawclient:", err)
		os.Exit(1)
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	if res.Failed > 0 {
		os.Exit(1)
	}
}

func run(cfg config) (*Result, error) {
	body, err := json.Marshal(map[string]any{
		"model":          cfg.model,
		"messages":       []map[string]string{{"role": "user", "content": cfg.prompt}},
		"max_tokens":     cfg.max,
		"stream":         true,
		"stream_options": map[string]bool{"include_usage": true},
	})
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        cfg.c + 8,
		MaxIdleConnsPerHost: cfg.c + 8,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()

	res := &Result{Concurrency: cfg.c, Requests: cfg.requests}
	var (
		next     atomic.Int64
		errOnce  sync.Once
		wg       sync.WaitGroup
		endpoint = cfg.url + "/chat/completions"
	)
	cpu0, t0 := cpuTime(), time.Now()
	for range cfg.c {
		wg.Go(func() {
			br := bufio.NewReaderSize(nil, 4096)
			for next.Add(1) <= int64(cfg.requests) && ctx.Err() == nil {
				n, err := stream(ctx, hc, endpoint, body, br)
				atomic.AddInt64(&res.Tokens, n)
				if err != nil {
					atomic.AddInt64(&res.Failed, 1)
					errOnce.Do(func() { res.FirstError = err.Error() })
					continue
				}
				atomic.AddInt64(&res.OK, 1)
			}
		})
	}
	wg.Wait()
	res.WallSeconds = time.Since(t0).Seconds()
	res.CPUSeconds = (cpuTime() - cpu0).Seconds()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		res.MaxRSSKB = ru.Maxrss
	}
	return res, nil
}

var (
	content = []byte(`"delta":{"content":"`)
	done    = []byte("data: [DONE]")
)

// stream sends one request and reads its stream to [DONE], returning the
// number of content chunks.
func stream(ctx context.Context, hc *http.Client, url string, body []byte, br *bufio.Reader) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	br.Reset(resp.Body)
	defer br.Reset(nil)
	var n int64
	for {
		line, err := br.ReadSlice('\n')
		switch {
		case bytes.Contains(line, content):
			n++
		case bytes.HasPrefix(line, done):
			_, _ = io.Copy(io.Discard, br) // the end of the chunked body: the connection is reused
			return n, nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return n, fmt.Errorf("stream cut after %d chunks: %w", n, err)
		}
	}
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
