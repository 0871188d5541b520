package client

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestResponseHeaderBound: the transport reads response headers up to
// maxResponseHeader and refuses a response whose headers are longer, so a
// server cannot make a stream hold more (net/http's own bound is 10 MB).
// Its small connection buffers still read headers longer than themselves.
func TestResponseHeaderBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("X-Big", strings.Repeat("a", n))
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	c, err := New(Config{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		n  int
		ok bool
	}{
		{n: 8 * connReadBuf, ok: true},
		{n: maxResponseHeader - 4096, ok: true},
		{n: maxResponseHeader + 1, ok: false},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/?n="+strconv.Itoa(tc.n), nil)
		resp, err := c.tr.RoundTrip(req)
		if err == nil {
			if got := len(resp.Header.Get("X-Big")); got != tc.n {
				t.Errorf("header of %d bytes read as %d", tc.n, got)
			}
			resp.Body.Close()
		}
		if (err == nil) != tc.ok {
			t.Errorf("a %d-byte header: err %v, want ok %v", tc.n, err, tc.ok)
		}
	}
}
