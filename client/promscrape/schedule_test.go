package promscrape

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

func TestGap(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		elapsed, interval, want time.Duration
	}{
		{0, time.Second, 50 * ms},
		{50 * ms, time.Second, 50 * ms},
		{100 * ms, time.Second, 100 * ms},
		{800 * ms, time.Second, 800 * ms},
		{1600 * ms, time.Second, time.Second},
		{0, 20 * ms, 20 * ms}, // an interval under FirstSample is kept
		{5 * time.Second, 20 * ms, 20 * ms},
	} {
		if got := gap(c.elapsed, c.interval); got != c.want {
			t.Errorf("gap(%v, %v) = %v, want %v", c.elapsed, c.interval, got, c.want)
		}
	}
}

// fakeServer answers each scrape at once, in the bubble's time, with
// running = the scrape's number, and notes when each came.
type fakeServer struct {
	mu    sync.Mutex
	t0    time.Time
	times []time.Duration
}

func (f *fakeServer) RoundTrip(*http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.times = append(f.times, time.Since(f.t0))
	body := fmt.Sprintf("vllm:num_requests_running %d\nvllm:num_requests_waiting 0\n", len(f.times)-1)
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}, nil
}

// TestSamplerSchedule runs a level of 250 ms and one of 3 s in fake time:
// the in-level scrapes fall at 50, 100, 200 ms (then 400, 800, 1600,
// 2600 ms), between the opening scrape at 0 and the closing one at the
// level's end; the gauges' means are over the in-level ones only.
func TestSamplerSchedule(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		level time.Duration
		want  []time.Duration
	}{
		{250 * ms, []time.Duration{0, 50 * ms, 100 * ms, 200 * ms, 250 * ms}},
		{80 * ms, []time.Duration{0, 50 * ms, 80 * ms}},
		{3 * time.Second, []time.Duration{0, 50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2600 * ms, 3000 * ms}},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := &fakeServer{t0: time.Now()}
			s := &Sampler{URL: "http://sim.invalid/metrics", Client: &http.Client{Transport: f}}
			stop := s.Start(context.Background())
			time.Sleep(c.level)
			m := stop()
			if !slices.Equal(f.times, c.want) {
				t.Errorf("level of %v: scrapes at %v, want %v", c.level, f.times, c.want)
			}
			in := len(c.want) - 2
			if m.Scrapes != in || m.Running.N != in || m.Failures != 0 {
				t.Errorf("level of %v: %d scrapes, running N %d, %d failures; want %d, %d, 0", c.level, m.Scrapes, m.Running.N, m.Failures, in, in)
			}
			// The in-level scrapes answered 1, 2, …, in: their mean is (in+1)/2.
			if got, want := m.Running.Mean(), float64(in+1)/2; got != want {
				t.Errorf("level of %v: running mean %v, want %v", c.level, got, want)
			}
		})
	}
}

// TestSamplerEndScrape, in fake time: EndLag after the level's load ends
// (loadEnd closes) the sampler takes one more sample of the gauges, beside
// those of the schedule: a load that ends at 30 ms is sampled at 40 ms
// (and at 50), one that ends at 150 ms at 160 ms, one of 2 s at 2010 ms. A
// level that ends within EndLag of its load's end has no end sample: stop
// cancels it, and that is not a failure.
func TestSamplerEndScrape(t *testing.T) {
	const ms = time.Millisecond
	for _, c := range []struct {
		load, level time.Duration
		want        []time.Duration
	}{
		{30 * ms, 80 * ms, []time.Duration{0, 40 * ms, 50 * ms, 80 * ms}},
		{150 * ms, 250 * ms, []time.Duration{0, 50 * ms, 100 * ms, 160 * ms, 200 * ms, 250 * ms}},
		{2 * time.Second, 2100 * ms, []time.Duration{0, 50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2010 * ms, 2100 * ms}},
		{60 * ms, 65 * ms, []time.Duration{0, 50 * ms, 65 * ms}},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := &fakeServer{t0: time.Now()}
			s := &Sampler{URL: "http://sim.invalid/metrics", Client: &http.Client{Transport: f}}
			loadEnd := make(chan struct{})
			stop := s.StartLevel(context.Background(), loadEnd)
			time.Sleep(c.load)
			close(loadEnd)
			time.Sleep(c.level - c.load)
			m := stop()
			if !slices.Equal(f.times, c.want) {
				t.Errorf("load of %v in a level of %v: scrapes at %v, want %v", c.load, c.level, f.times, c.want)
			}
			in := len(c.want) - 2
			if m.Scrapes != in || m.Running.N != in || m.Failures != 0 {
				t.Errorf("load of %v: %d scrapes, running N %d, %d failures; want %d, %d, 0", c.load, m.Scrapes, m.Running.N, m.Failures, in, in)
			}
			if got, want := m.Running.Mean(), float64(in+1)/2; got != want {
				t.Errorf("load of %v: running mean %v, want %v", c.load, got, want)
			}
		})
	}
}
