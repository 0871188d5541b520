package client

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

const (
	// maxWarmBody bounds what is read of a warm-up response. A longer body
	// is cut, which closes its connection instead of pooling it.
	maxWarmBody = 1 << 20
)

// WarmConns opens up to n connections ahead of the load, so that no
// measured request pays for TCP and TLS setup in its time to first token.
// It sends n concurrent GET {base}/models requests with the authentication
// headers and keeps every response open until all have arrived, so that
// each takes a connection of its own; then it reads each body (up to
// 1 MiB) and closes it, which leaves the connections idle in the pool.
// Connections already idle are reused rather than added to. n is capped by
// the pool's idle capacity, which is above Config.MaxConns, so n ≤ MaxConns
// connections all stay. A response of any status will do: the connection
// is what matters. A server that answers without a body (a bare 404, say)
// returns its connection at once, and a slower request may then share it,
// so fewer than n may open.
//
// It never fails the run: its error, which says how many requests failed
// and why, is for the caller to log. ctx and the connect timeout
// (Config.ConnectTimeout, or 10s) bound the whole warm-up: a /models that
// hangs delays a level by that much, not by the request timeout, and the
// level's requests then open their own connections.
func (c *Client) WarmConns(ctx context.Context, n int) error {
	n = min(n, c.tr.MaxIdleConnsPerHost)
	if n <= 0 {
		return nil
	}
	parent := ctx
	timeout := cmp.Or(max(c.cfg.ConnectTimeout, 0), defaultConnectTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	errs := make([]*RequestError, n)
	var arrived, done sync.WaitGroup
	arrived.Add(n)
	for i := range n {
		done.Go(func() {
			resp, e := c.warmRequest(parent, ctx, timeout)
			errs[i] = e
			arrived.Done()
			arrived.Wait() // hold the connection until every request has one
			if resp != nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxWarmBody))
				_ = resp.Body.Close()
			}
		})
	}
	done.Wait()
	return warmError(errs)
}

// warmRequest sends one warm-up request and returns its response, or why
// there is none.
func (c *Client) warmRequest(parent, ctx context.Context, timeout time.Duration) (*http.Response, *RequestError) {
	req, err := c.newRequest(ctx, http.MethodGet, c.modelsURL, nil)
	if err != nil {
		return nil, c.failure(Connect, 0, c.showModels, err.Error())
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil && parent.Err() == nil && ctx.Err() != nil {
		return nil, c.failure(Timeout, 0, c.showModels, fmt.Sprintf("no answer within %s (the warm-up's limit, the connect timeout)", timeout))
	}
	if err != nil {
		return nil, c.transportFailure(parent, ctx, err, c.showModels)
	}
	return resp, nil
}

// warmError sums up the failed warm-up requests, or returns nil.
func warmError(errs []*RequestError) error {
	var first *RequestError
	failed := 0
	for _, e := range errs {
		if e != nil {
			failed++
			if first == nil {
				first = e
			}
		}
	}
	if first == nil {
		return nil
	}
	return fmt.Errorf("connection warm-up: %d of %d requests failed, the first: %w", failed, len(errs), first)
}
