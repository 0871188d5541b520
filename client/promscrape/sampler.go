package promscrape

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Defaults of a Sampler.
const (
	DefaultInterval = time.Second
	// MinInterval is the shortest --metrics-interval: scraping faster
	// measures the scraper, not the server (1ns made 7244 scrapes in 5 s).
	MinInterval    = 100 * time.Millisecond
	DefaultTimeout = 5 * time.Second
	// FirstSample is how far into a level its first in-level scrape is
	// taken, and the shortest gap between two: a closed loop's workers
	// are all in flight by then, and a level of 100 ms gets two samples
	// of the gauges (see gap).
	FirstSample = 50 * time.Millisecond
	// EndLag is how long after the level's load ends (its last request
	// handed out) its end scrape is taken: time for that request to reach
	// the server, so that the scrape does not overtake it and count one
	// request fewer.
	EndLag  = 10 * time.Millisecond
	maxBody = 64 << 20 // an exposition larger than this is cut and fails to parse
)

// Sampler scrapes one Prometheus endpoint. Its zero value is not usable:
// set URL. It is safe for concurrent use, but Start is meant to run one
// level at a time.
type Sampler struct {
	URL      string
	Header   http.Header   // sent with every scrape (e.g. Authorization); may be nil
	Interval time.Duration // between in-level scrapes; 0 means DefaultInterval
	Timeout  time.Duration // per scrape; 0 means DefaultTimeout
	// Client sends the scrapes; nil means http.DefaultClient. Whatever
	// its CheckRedirect, a scrape never follows a redirect: the 3xx is a
	// failed scrape, so Header never reaches wherever Location points.
	Client *http.Client
}

// Scrape fetches and reads the endpoint once.
func (s *Sampler) Scrape(ctx context.Context) (*Snapshot, error) {
	var fams *Exposition
	err := fetch(ctx, s, func(r io.Reader) (err error) {
		fams, err = Parse(r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return Read(fams), nil
}

// fetch GETs s.URL once (the classic text format, s.Header, s.Timeout; a
// redirect is a failed scrape, never followed) and hands the body, at
// most maxBody, to read.
func fetch(ctx context.Context, s *Sampler, read func(io.Reader) error) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return fmt.Errorf("metrics URL %s: %v", ShowURL(s.URL), err)
	}
	for k, vs := range s.Header {
		req.Header[k] = vs
	}
	// The classic text format: never protobuf, whatever the server prefers.
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	hc := http.Client{CheckRedirect: noRedirects}
	if s.Client != nil {
		hc = *s.Client
		hc.CheckRedirect = noRedirects
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("scraping %s: %v", ShowURL(s.URL), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode/100 == 3 {
			return fmt.Errorf("scraping %s: HTTP %s (redirects are not followed)", ShowURL(s.URL), resp.Status)
		}
		return fmt.Errorf("scraping %s: HTTP %s", ShowURL(s.URL), resp.Status)
	}
	if err := read(io.LimitReader(resp.Body, maxBody)); err != nil {
		return fmt.Errorf("scraping %s: %v", ShowURL(s.URL), err)
	}
	return nil
}

func (s *Sampler) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s *Sampler) interval() time.Duration {
	if s.Interval > 0 {
		return s.Interval
	}
	return DefaultInterval
}

// gap is the wait before the next in-level scrape, elapsed into the level:
// the time elapsed so far, at least FirstSample and at most interval. The
// scrapes of a level thus fall at 50, 100, 200, 400 and 800 ms, then
// every interval (1.6 s, 2.6 s, … at the default): a level of length T
// shorter than 1.6 s gets ⌊log₂(T/50 ms)⌋+1 samples, every level from
// 100 ms at least 2, and a long level about one per interval (5 more
// scrapes a level than a fixed interval at the default, each a few
// milliseconds of the server's time). An interval under FirstSample is
// kept throughout. StartLevel adds one at the load's end.
func gap(elapsed, interval time.Duration) time.Duration {
	return min(max(elapsed, FirstSample), interval)
}

// Start is StartLevel without a signal of the load's end: the in-level
// scrapes go on until stop.
func (s *Sampler) Start(ctx context.Context) (stop func() *LevelMetrics) {
	return s.StartLevel(ctx, nil)
}

// StartLevel takes the opening scrape, then scrapes in the background, at
// the instants gap sets and once more EndLag after loadEnd is closed (the
// level's load has ended: its last request handed out, or its deadline),
// until stop is called. The end scrape is the level's sample at full load
// however short it is. stop (to be called once, when the level's last
// request has ended) ends the sampling, takes the closing scrape and
// returns the level's metrics, after any scrape under way has ended (so
// that a level ending just after its load still keeps its end scrape,
// however slow the endpoint: at most Timeout). A failed scrape is counted in the result,
// never returned as an error: the server's view is a complement to the
// client's figures, not a condition for them. The closing scrape is taken
// even when ctx has been canceled, within Timeout. A nil loadEnd never
// closes.
func (s *Sampler) StartLevel(ctx context.Context, loadEnd <-chan struct{}) (stop func() *LevelMetrics) {
	m := &LevelMetrics{}
	open, err := s.Scrape(ctx)
	if err != nil {
		m.fail(err)
	}
	stopping, done := make(chan struct{}), make(chan struct{})
	go func() { // owns m until done is closed
		defer close(done)
		start := time.Now()
		t := time.NewTimer(gap(0, s.interval()))
		defer t.Stop()
		var end <-chan time.Time // armed at loadEnd
		for {
			select {
			case <-ctx.Done():
				return
			case <-stopping:
				return
			case <-loadEnd:
				loadEnd, end = nil, time.After(EndLag)
				continue
			case <-end:
				end = nil
			case <-t.C:
				t.Reset(gap(time.Since(start), s.interval()))
			}
			snap, err := s.Scrape(ctx) // a scrape under way when stop is called ends first (within Timeout)
			switch {
			case ctx.Err() != nil:
				return // canceled mid-scrape: not a failure
			case err != nil:
				m.fail(err)
			default:
				m.sample(snap)
			}
		}
	}()
	return func() *LevelMetrics {
		close(stopping)
		<-done
		closing, err := s.Scrape(context.WithoutCancel(ctx))
		switch {
		case err != nil:
			m.fail(err)
		case open != nil:
			m.between(open, closing)
		}
		return m
	}
}

func (m *LevelMetrics) fail(err error) {
	if m.Failures == 0 {
		m.Error = err.Error()
	}
	m.Failures++
}

// noRedirects makes a redirect a response like any other, never followed.
func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// ShowURL is raw without credentials or query, for messages.
func ShowURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// unwrapURLError drops the *url.Error wrapper, which quotes the whole URL
// (credentials included).
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
