package app

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
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
	// fault, when set, decides per request (1-based) how its stream goes
	// wrong once it has started; see streamFault.
	fault func(n int64) streamFault
	// apiKey, when set, is required as "Authorization: Bearer KEY" on every
	// endpoint; any other key gets a 401.
	apiKey string
	// echoAuth makes every error body, error event and malformed chunk quote
	// the request's Authorization header, as careless servers do, so that
	// tests can check toksweep scrubs it.
	echoAuth bool
	// contextLen, when set, answers 400 like vLLM when the prompt (7
	// tokens) plus max_tokens exceeds it, and /v1/models lists it as
	// max_model_len unless unlisted is set.
	contextLen int
	unlisted   bool
	// inStream makes the refusals (unknown model, context length) error
	// events inside an HTTP 200 stream, as llm-d-inference-sim sends them.
	inStream bool
	models   atomic.Int64 // GET /v1/models requests
	srv      *httptest.Server
	// late is the most a token was written after its schedule, in ns: a
	// starved machine's mark (see starved).
	late atomic.Int64
}

// streamFault is one way a started stream goes wrong, after `after` token
// chunks have been sent.
type streamFault struct {
	kind  faultKind
	after int
	event string // faultErrorEvent: the event's data; {{auth}} becomes the Authorization header
}

type faultKind int

const (
	faultNone       faultKind = iota
	faultCut                  // the connection is dropped mid-stream
	faultMalformed            // one data event that is not JSON; the stream then goes on normally
	faultErrorEvent           // an {"error": ...} event inside the 200 stream, then [DONE]
	faultStall                // no more bytes until the client gives up
	faultStallHead            // not even response headers: the server accepts and says nothing
	faultRaw                  // the body is event verbatim (a captured stream), status 200
)

// startPaced starts a paced server. The options set the failure modes; they
// run before the server starts, so that its handlers (which may serve a
// child process, outside the race detector's view) see them.
func startPaced(t *testing.T, ttft, itl time.Duration, tokens int, opts ...func(*pacedServer)) *pacedServer {
	t.Helper()
	return newPaced(t, ttft, itl, tokens, false, opts...)
}

// startPacedTLS is startPaced over HTTPS with httptest's self-signed
// certificate, which toksweep must refuse unless --insecure is given.
func startPacedTLS(t *testing.T, ttft, itl time.Duration, tokens int, opts ...func(*pacedServer)) *pacedServer {
	t.Helper()
	return newPaced(t, ttft, itl, tokens, true, opts...)
}

func newPaced(t *testing.T, ttft, itl time.Duration, tokens int, useTLS bool, opts ...func(*pacedServer)) *pacedServer {
	p := &pacedServer{ttft: ttft, itl: itl, tokens: tokens}
	for _, o := range opts {
		o(p)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		p.models.Add(1)
		if p.rejectKey(w, r) {
			return
		}
		if p.contextLen > 0 && !p.unlisted {
			fmt.Fprintf(w, `{"object":"list","data":[{"id":"paced","object":"model","owned_by":"test","max_model_len":%d}]}`, p.contextLen)
			return
		}
		fmt.Fprint(w, `{"object":"list","data":[{"id":"paced","object":"model","owned_by":"test"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", p.chat)
	if p.echoAuth {
		// Every other scrape is a page quoting the credentials, which
		// Prometheus cannot parse; the first is valid, so toksweep samples.
		var scrapes atomic.Int64
		mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
			if scrapes.Add(1)%2 == 1 {
				fmt.Fprint(w, "vllm:num_requests_running 0\n")
				return
			}
			fmt.Fprintf(w, "welcome %s %s\n", r.Header.Get("Authorization"), r.Header.Values("X-Api-Key"))
		})
	}
	if useTLS {
		p.srv = httptest.NewTLSServer(mux)
		p.srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are the point
	} else {
		p.srv = httptest.NewServer(mux)
	}
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pacedServer) url() string { return p.srv.URL + "/v1" }

// seen is every request the server received, on any endpoint.
func (p *pacedServer) seen() int64 { return p.requests.Load() + p.models.Load() }

// rejectKey answers 401 when an API key is required and r lacks it.
func (p *pacedServer) rejectKey(w http.ResponseWriter, r *http.Request) bool {
	if p.apiKey == "" || r.Header.Get("Authorization") == "Bearer "+p.apiKey {
		return false
	}
	msg := "Incorrect API key provided"
	if p.echoAuth {
		msg += ": " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	}
	writeError(w, http.StatusUnauthorized, msg)
	return true
}

// writeError answers with an OpenAI error object.
func writeError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "code": code}})
	http.Error(w, string(b), code)
}

func (p *pacedServer) chat(w http.ResponseWriter, r *http.Request) {
	n := p.requests.Add(1)
	if p.rejectKey(w, r) {
		return
	}
	auth := ""
	if p.echoAuth {
		auth = " (auth: " + r.Header.Get("Authorization") + ")"
	}
	var req struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
	}
	const promptTokens = 7 // what the usage chunk says
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "paced" {
		p.refuse(w, http.StatusNotFound, "The model `"+req.Model+"` does not exist.")
		return
	}
	if p.contextLen > 0 && promptTokens+req.MaxTokens > p.contextLen { // llm-d-inference-sim's words
		p.refuse(w, http.StatusBadRequest, fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion",
			p.contextLen, promptTokens+req.MaxTokens, promptTokens, req.MaxTokens))
		return
	}
	if p.fail != nil {
		if code := p.fail(n); code != 0 {
			writeError(w, code, fmt.Sprintf("injected %d%s", code, auth))
			return
		}
	}
	var f streamFault
	if p.fault != nil {
		f = p.fault(n)
	}
	if f.kind == faultRaw {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, f.event)
		return
	}
	if f.kind == faultStallHead {
		<-r.Context().Done()
		return
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
		if f.kind != faultNone && i == f.after {
			switch f.kind {
			case faultCut:
				panic(http.ErrAbortHandler) // drops the connection, chunked body unterminated
			case faultMalformed:
				send(`{"choices":[{"delta":{"content":"cut` + auth)
			case faultErrorEvent:
				send(strings.ReplaceAll(f.event, "{{auth}}", r.Header.Get("Authorization")))
				send("[DONE]")
				return
			case faultStall:
				<-r.Context().Done()
				return
			}
		}
		due := start.Add(p.ttft + time.Duration(i)*p.itl)
		time.Sleep(time.Until(due))
		p.noteLate(time.Since(due))
		if !send(pre + `"delta":{"content":"tok "},"finish_reason":null}]}`) {
			return
		}
	}
	send(pre + `"delta":{},"finish_reason":"length"}]}`)
	send(fmt.Sprintf(`{"id":"x","object":"chat.completion.chunk","model":"paced","choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d,"total_tokens":%d}}`, p.tokens, p.tokens+7))
	send("[DONE]")
}

// refuse answers a request the server will not serve: with the status, or
// with inStream as an error event carrying the code inside a 200 stream
// (then [DONE]), as llm-d-inference-sim does.
func (p *pacedServer) refuse(w http.ResponseWriter, code int, msg string) {
	if !p.inStream {
		writeError(w, code, msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "BadRequestError", "param": nil, "code": code}})
	fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
}

// noteLate keeps the largest lateness of a token write.
func (p *pacedServer) noteLate(d time.Duration) {
	for {
		old := p.late.Load()
		if int64(d) <= old || p.late.CompareAndSwap(old, int64(d)) {
			return
		}
	}
}

// serverSlack is how late the paced server may write a token before the
// machine counts as starved. A quiet machine wakes a sleeping handler within
// about a millisecond (-race included); when the server itself wrote tokens
// later than this, the client was starved alike, and figures measured
// against the closed form say how busy the machine was, not whether
// toksweep measures right (client/timing_test.go draws the same line).
const serverSlack = 3 * time.Millisecond

// starved reports, and logs, whether the server wrote some token more than
// serverSlack after its schedule since the last call, and resets the mark.
func (p *pacedServer) starved(t *testing.T) bool {
	t.Helper()
	late := time.Duration(p.late.Swap(0))
	if late > serverSlack {
		t.Logf("the paced server itself wrote a token %v after its schedule: the machine was starved", late)
		return true
	}
	return false
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
