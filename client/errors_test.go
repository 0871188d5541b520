package client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPErrors checks that a non-2xx response becomes its class and one
// line with the server's message, in Do's Record and in Probe's error.
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	llmdStatus, llmdBody := httpTranscript(t, "llmd-unknown-model.txt")
	ollamaStatus, ollamaBody := httpTranscript(t, "ollama-unknown-model.txt")
	html := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n" + strings.Repeat("padding ", 40) + "</body></html>"
	tests := []struct {
		name   string
		status int
		body   string
		class  ErrorClass
		want   string // Do's Record.Error
	}{
		{"401", 401, `{"error":{"message":"invalid API key","type":"AuthenticationError","code":401}}`, HTTP4xx,
			"HTTP 401: invalid API key (check --api-key / OPENAI_API_KEY)"},
		{"llm-d unknown model", llmdStatus, llmdBody, HTTP4xx, "HTTP 404: The model `nope` does not exist."},
		{"ollama unknown model", ollamaStatus, ollamaBody, HTTP4xx, "HTTP 404: model 'nope' not found"},
		{"context too long", 400, `{"object":"error","message":"This model's maximum context length is 1024 tokens.","type":"BadRequestError","param":null,"code":400}`,
			HTTP4xx, "HTTP 400: This model's maximum context length is 1024 tokens."},
		{"429 plain text", 429, "Too many requests\nslow down\n", HTTP429, "HTTP 429: Too many requests slow down"},
		{"500 TGI", 500, `{"error":"Request failed during generation: out of memory","error_type":"generation"}`, HTTP5xx,
			"HTTP 500: Request failed during generation: out of memory"},
		{"502 html", 502, html, HTTP5xx, "HTTP 502: <html> <head><title>502 Bad Gateway</title></head> <body> padding padding"},
		{"503 empty", 503, "", HTTP5xx, "HTTP 503: Service Unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, respond(tt.status, tt.body))
			c := newClient(t, srv.URL, Config{})
			rec := c.Do(context.Background(), Prompt{Text: "hi"})
			if rec.ErrorClass != tt.class || rec.Status != tt.status || !strings.HasPrefix(rec.Error, tt.want) {
				t.Errorf("got %q %d %q\nwant %q %d %q", rec.ErrorClass, rec.Status, rec.Error, tt.class, tt.status, tt.want)
			}
			if strings.ContainsAny(rec.Error, "\r\n") || len(rec.Error) > 300 {
				t.Errorf("not one short line: %q", rec.Error)
			}
			if rec.Header == 0 || rec.End < rec.Header || len(rec.ChunkAt) != 0 {
				t.Errorf("header %v end %v chunks %d", rec.Header, rec.End, len(rec.ChunkAt))
			}
			var re *RequestError
			err := c.Probe(context.Background(), Prompt{Text: "hi"})
			if !errors.As(err, &re) || re.Class != tt.class || re.Status != tt.status {
				t.Fatalf("Probe: %#v", err)
			}
			at := srv.URL + "/v1/chat/completions"
			if want := strings.Replace(tt.want, ":", " from "+at+":", 1); !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Probe error %q\nwant %q", err, want)
			}
		})
	}
}

// TestTransportFailures covers the failures that are not HTTP statuses:
// nothing listening, a stream that stalls, the caller canceling, and a
// connection dropped mid-stream.
func TestTransportFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		handler http.HandlerFunc // nil: nothing listens
		timeout time.Duration
		cancel  int // cancel the caller's context once this many chunks have arrived
		class   ErrorClass
		want    string
		chunks  int
		within  time.Duration
	}{
		{"connection refused", nil, 0, 0, Connect, "cannot connect: connection refused", 0, time.Second},
		{"stall", stallAfterOne, 200 * time.Millisecond, 0, Timeout,
			"request timed out: no complete response within 200ms (1 token chunks received)", 1, 700 * time.Millisecond},
		{"canceled", endless, 0, 5, Canceled, "request canceled", 5, time.Second},
		{"dropped", dropMidChunk, 0, 0, Truncated, "incomplete stream: connection closed mid-stream (unexpected EOF)", 0, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := "http://" + closedPort(t)
			if tt.handler != nil {
				url = newServer(t, tt.handler).URL
			}
			c := newClient(t, url, Config{RequestTimeout: tt.timeout})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel > 0 {
				cancelAfterChunks(c, tt.cancel, cancel)
			}
			begin := time.Now()
			rec := c.Do(ctx, Prompt{Text: "hi"})
			if took := time.Since(begin); took > tt.within {
				t.Errorf("took %v", took)
			}
			if rec.ErrorClass != tt.class || rec.Error != tt.want {
				t.Errorf("got %q %q, want %q %q", rec.ErrorClass, rec.Error, tt.class, tt.want)
			}
			if tt.chunks > 0 && len(rec.ChunkAt) < tt.chunks || tt.chunks == 0 && len(rec.ChunkAt) != 0 {
				t.Errorf("%d chunks, want %d", len(rec.ChunkAt), tt.chunks)
			}
			if rec.End < rec.Start || tt.class == Timeout && rec.End-rec.Start < tt.timeout {
				t.Errorf("start %v end %v", rec.Start, rec.End)
			}
		})
	}
}

// A token chunk, and three misbehaving servers built with it.
const xChunk = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"

// stallAfterOne sends one chunk and then nothing.
func stallAfterOne(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = w.Write([]byte(xChunk))
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// cancelAfterChunks makes c call cancel as soon as n whole xChunk events
// have been read from a response body (xChunk is all endless sends), so
// that they have arrived, whatever the machine's load, before the cancel.
func cancelAfterChunks(c *Client, n int, cancel context.CancelFunc) {
	base := c.hc.Transport
	c.hc.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err == nil {
			resp.Body = &countingBody{ReadCloser: resp.Body, need: n * len(xChunk), cancel: cancel}
		}
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// countingBody calls cancel once need bytes have been read through it.
type countingBody struct {
	io.ReadCloser
	need   int
	cancel context.CancelFunc
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.need -= n; b.need <= 0 {
		b.cancel()
	}
	return n, err
}

// endless sends a chunk every 10 ms until the client goes.
func endless(w http.ResponseWriter, r *http.Request) {
	for r.Context().Err() == nil {
		_, _ = w.Write([]byte(xChunk))
		w.(http.Flusher).Flush()
		time.Sleep(10 * time.Millisecond)
	}
}

// dropMidChunk sends half an HTTP chunk, then closes the connection.
func dropMidChunk(w http.ResponseWriter, _ *http.Request) {
	conn, buf, _ := w.(http.Hijacker).Hijack()
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	_, _ = buf.WriteString("40\r\n" + xChunk[:40])
	_ = buf.Flush()
	_ = conn.Close()
}

// TestProbe checks the pre-flight request: nil as soon as a 2xx response
// delivers its first event (without waiting for the rest), one actionable
// line otherwise.
func TestProbe(t *testing.T) {
	t.Parallel()
	slow := replay(splitEvents(readFile(t, transcriptsDir, "llmd-chat-stream-usage.sse")),
		pace{first: 10 * time.Millisecond, gap: 10 * time.Second}, nil)
	srv := newServer(t, slow)
	c := newClient(t, srv.URL, Config{})
	begin := time.Now()
	if err := c.Probe(context.Background(), Prompt{Text: "hi"}); err != nil {
		t.Errorf("Probe: %v", err)
	}
	// Events are 10 s apart: a Probe that read on would take 10 s or more;
	// one that stops takes milliseconds, or a second or two on a starved
	// machine (the handler returns when the probe cancels, so the test
	// does not wait for the second event either way).
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("Probe took %v: it should stop after the first event", took)
	}

	addr := closedPort(t)
	c = newClient(t, "http://"+addr, Config{})
	want := "cannot connect to http://" + addr + "/v1: connection refused"
	if err := c.Probe(context.Background(), Prompt{Text: "hi"}); err == nil || err.Error() != want {
		t.Errorf("Probe: %v, want %s", err, want)
	}

	queueFull := replay(splitEvents(readFile(t, transcriptsDir, "llmd-queue-full-error.sse")), pace{}, nil)
	srv = newServer(t, queueFull)
	c = newClient(t, srv.URL, Config{})
	want = "error event in stream from " + srv.URL + "/v1/chat/completions: Failed to enqueue request"
	var re *RequestError
	if err := c.Probe(context.Background(), Prompt{Text: "hi"}); !errors.As(err, &re) ||
		re.Class != HTTP429 || re.Status != 200 || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Probe: %v, want a *RequestError %q", err, want)
	}

	srv = newServer(t, respond(200, `{"choices":[{"message":{"content":"not streamed"}}]}`))
	c = newClient(t, srv.URL, Config{})
	if err := c.Probe(context.Background(), Prompt{Text: "hi"}); err == nil ||
		!strings.Contains(err.Error(), "the response has no SSE events") {
		t.Errorf("Probe of a non-streaming server: %v", err)
	}
}

// TestErrorEventFormats checks the error events of servers other than
// llm-d: TGI's bare string and llama.cpp's "error:" field.
func TestErrorEventFormats(t *testing.T) {
	t.Parallel()
	tests := []struct{ stream, class, want string }{
		{`data: {"error":"Input validation error: max_tokens too big","error_type":"validation"}`,
			string(StreamError), "error event in stream: Input validation error: max_tokens too big"},
		{`error: {"code":500,"message":"context shift disabled","type":"server_error"}`,
			string(StreamError), "error event in stream: context shift disabled (code 500)"},
		{`data: {"error":{"message":"busy","code":"429"}}`, string(HTTP429), "error event in stream: busy (code 429)"},
		{`data: {"error":{"code":null,"message":"overloaded"}}`, string(StreamError), "error event in stream: overloaded"},
		{`data: {"error":42}`, string(StreamError), "error event in stream: error event: 42"},
	}
	for _, tt := range tests {
		r := newSSEReader(bufio.NewReader(strings.NewReader(tt.stream+"\n\ndata: [DONE]\n\n")), func() time.Duration { return 1 })
		rec := Record{Status: 200}
		s := stream{rec: &rec, scrub: func(s string) string { return s }}
		err := s.read(r, 0)
		r.free()
		c := &Client{}
		e := c.streamFailure(context.Background(), context.Background(), &s, err, "")
		if e == nil || string(e.Class) != tt.class || e.format(false) != tt.want {
			t.Errorf("%s:\ngot %+v\nwant %s %q", tt.stream, e, tt.class, tt.want)
		}
	}
}
