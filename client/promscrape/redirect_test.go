package promscrape

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestScrapeRefusesRedirects: a /metrics that answers 302 to another
// loopback port (which would receive the credentials) fails the scrape,
// whatever redirect policy the given client has, and the other server
// never sees a request.
func TestScrapeRefusesRedirects(t *testing.T) {
	t.Parallel()
	var stolen atomic.Int64
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		t.Errorf("the redirect was followed: %s received Authorization %q, X-Api-Key %q",
			r.URL, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
	}))
	t.Cleanup(thief.Close)
	for _, code := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, thief.URL+"/metrics", code)
		}))
		t.Cleanup(hostile.Close)
		header := http.Header{"Authorization": {"Bearer sk-scrape"}, "X-Api-Key": {"k-scrape"}}
		for _, hc := range []*http.Client{nil, {}, hostile.Client()} {
			s := &Sampler{URL: hostile.URL + "/metrics", Header: header, Client: hc}
			_, err := s.Scrape(context.Background())
			if err == nil || !strings.Contains(err.Error(), "redirects are not followed") {
				t.Errorf("%d: err %v, want a refused redirect", code, err)
			}
		}
	}
	if n := stolen.Load(); n > 0 {
		t.Errorf("the other server received %d scrapes", n)
	}
}
