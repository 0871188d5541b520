package sim

import (
	"context"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
)

// ArrivalsFrom and GET /debug/arrivals name the client address each
// arrival came from: requests sent over two connections of their own are
// told apart by the connections' local addresses, in the order each
// connection sent them.
func TestArrivalsFromNameTheConnection(t *testing.T) {
	t.Parallel()
	cfg := testConfig()
	cfg.RecordArrivals = true
	s, url := startSim(t, cfg)
	var sent []string // the local address of each request's connection, in order
	for range 2 {
		hc := &http.Client{Transport: &http.Transport{}} // a pool, and so a connection, of its own
		defer hc.CloseIdleConnections()
		for range 2 {
			var local string
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				GotConn: func(i httptrace.GotConnInfo) { local = i.Conn.LocalAddr().String() },
			})
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/completions",
				strings.NewReader(`{"model": "test-model", "prompt": [1, 2, 3], "max_tokens": 1}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			decodeBody(t, resp)
			sent = append(sent, local)
		}
	}
	if sent[0] != sent[1] || sent[2] != sent[3] || sent[0] == sent[2] {
		t.Fatalf("the requests went over connections %v, want two of two each", sent)
	}
	got := s.ArrivalsFrom()
	if len(got) != len(sent) {
		t.Fatalf("%d arrivals, want %d", len(got), len(sent))
	}
	for i, a := range got {
		if a.RemoteAddr != sent[i] {
			t.Errorf("arrival %d from %q, want %q", i, a.RemoteAddr, sent[i])
		}
		if _, _, err := net.SplitHostPort(a.RemoteAddr); err != nil {
			t.Errorf("arrival %d: remote address %q: %v", i, a.RemoteAddr, err)
		}
		if i > 0 && a.At.Before(got[i-1].At) {
			t.Errorf("arrival %d at %v, before arrival %d", i, a.At, i-1)
		}
	}
	var reply ArrivalsReply
	getJSON(t, url+"/debug/arrivals", http.StatusOK, &reply)
	if len(reply.RemoteAddrs) != len(got) || len(reply.UnixNano) != len(got) {
		t.Fatalf("/debug/arrivals has %d stamps and %d addresses, want %d of each", len(reply.UnixNano), len(reply.RemoteAddrs), len(got))
	}
	for i, a := range got {
		if reply.RemoteAddrs[i] != a.RemoteAddr || reply.UnixNano[i] != a.At.UnixNano() {
			t.Errorf("/debug/arrivals %d: %d from %q, want %d from %q", i, reply.UnixNano[i], reply.RemoteAddrs[i], a.At.UnixNano(), a.RemoteAddr)
		}
	}
}
