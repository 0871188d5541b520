package app

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// pacedServer is an OpenAI-compatible chat server whose timing is known in
// closed form: every stream waits ttft, then sends one token every itl,
// whatever the concurrency. Deadlines are absolute, so sleep lateness does
// not accumulate over a stream.
type pacedServer struct {
	ttft, itl time.Duration
	tokens    int // per request (max_tokens is ignored)
	requests  atomic.Int64
	// fail, when set, decides per request (1-based) whether to answer with
	// an HTTP error instead of streaming.
	fail func(n int64) int
	srv  *httptest.Server
}

func startPaced(t *testing.T, ttft, itl time.Duration, tokens int) *pacedServer {
	t.Helper()
	p := &pacedServer{ttft: ttft, itl: itl, tokens: tokens}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"paced","object":"model","owned_by":"test"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", p.chat)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pacedServer) url() string { return p.srv.URL + "/v1" }

func (p *pacedServer) chat(w http.ResponseWriter, r *http.Request) {
	n := p.requests.Add(1)
	var req struct {
		Model string `json:"model"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "paced" {
		http.Error(w, `{"error":{"message":"The model does not exist.","type":"NotFoundError","code":404}}`, http.StatusNotFound)
		return
	}
	if p.fail != nil {
		if code := p.fail(n); code != 0 {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"injected %d","code":%d}}`, code, code), code)
			return
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl := w.(http.Flusher)
	start := time.Now()
	send := func(s string) bool {
		_, err := fmt.Fprintf(w, "data: %s\n\n", s)
		fl.Flush()
		return err == nil
	}
	const pre = `{"id":"x","object":"chat.completion.chunk","model":"paced","choices":[{"index":0,`
	send(pre + `"delta":{"role":"assistant"},"finish_reason":null}]}`)
	for i := range p.tokens {
		time.Sleep(time.Until(start.Add(p.ttft + time.Duration(i)*p.itl)))
		if !send(pre + `"delta":{"content":"tok "},"finish_reason":null}]}`) {
			return
		}
	}
	send(pre + `"delta":{},"finish_reason":"length"}]}`)
	send(fmt.Sprintf(`{"id":"x","object":"chat.completion.chunk","model":"paced","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`, p.tokens, p.tokens+7))
	send("[DONE]")
}

// expected figures in closed form.
func (p *pacedServer) decodeTPS() float64 { return 1 / p.itl.Seconds() }
func (p *pacedServer) e2eTPS() float64 {
	return float64(p.tokens) / (p.ttft + time.Duration(p.tokens-1)*p.itl).Seconds()
}

// within reports whether got is within tol (relative) of want.
func within(got, want, tol float64) bool {
	return got >= want*(1-tol) && got <= want*(1+tol)
}
