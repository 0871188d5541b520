//go:build unix

package app

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The planted credentials of TestNoSecretLeavesToksweep: unique strings, so
// that any copy in any output is theirs.
const (
	e2eKey    = "sk-e2e-9d1c7a53b2f0"
	e2eUser   = "alice-e2e"
	e2ePass   = "pw-e2e-61f0c2aa93"
	e2eHeader = "hk-e2e-0b7d5e14c8"
)

// hostileServer is an OpenAI-compatible server that echoes whatever
// credentials it receives in every way a careless or hostile one can: plain
// and JSON-escaped in error bodies, split across SSE data lines, in an
// error event, a malformed event and a finish_reason, in its model ids, in
// bytes sent on an idle connection, and by redirecting /metrics to another
// port (thief) that would receive the scrape's credentials.
type hostileServer struct {
	srv, thief  *httptest.Server
	chats       atomic.Int64 // POST /chat/completions
	metrics     atomic.Int64 // GET /metrics (answered with a redirect)
	stolen      atomic.Int64 // requests that reached thief
	unsolicited atomic.Int64 // model lists followed by unsolicited bytes
	mu          sync.Mutex
	ids         []string // the model ids listed; {{auth}} is the Authorization header
	auths       []string // every Authorization header received
}

func startHostile(t *testing.T) *hostileServer {
	t.Helper()
	h := &hostileServer{}
	h.thief = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.stolen.Add(1)
	}))
	t.Cleanup(h.thief.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", h.models)
	mux.HandleFunc("POST /v1/chat/completions", h.chat)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		h.metrics.Add(1)
		http.Redirect(w, r, h.thief.URL+"/metrics/"+url64(r.Header.Get("Authorization")), http.StatusFound)
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

func url64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

func (h *hostileServer) setIDs(ids ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ids = ids
}

// auth records and returns the request's Authorization header.
func (h *hostileServer) auth(r *http.Request) string {
	a := r.Header.Get("Authorization")
	h.mu.Lock()
	defer h.mu.Unlock()
	h.auths = append(h.auths, a)
	return a
}

// models lists the ids, then, on the same connection and in the same
// write, sends bytes no request asked for: once the client has put the
// connection back in its pool, net/http logs them ("Unsolicited response
// received on idle HTTP channel starting with ...").
func (h *hostileServer) models(w http.ResponseWriter, r *http.Request) {
	auth := h.auth(r)
	h.mu.Lock()
	var list struct {
		Data []map[string]string `json:"data"`
	}
	for _, id := range h.ids {
		list.Data = append(list.Data, map[string]string{"id": strings.ReplaceAll(id, "{{auth}}", auth), "object": "model"})
	}
	h.mu.Unlock()
	body, _ := json.Marshal(list)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nX-Echo: %s\r\n\r\n{\"key\":%q,\"escaped\":\"%s\"}", auth, auth, jsonEscapeDashes(auth))
	if buf.Flush() == nil {
		h.unsolicited.Add(1)
	}
	_, _ = conn.Read(make([]byte, 1)) // until the client closes it
}

// jsonEscapeDashes writes every "-" of s as the JSON escape \u002d.
func jsonEscapeDashes(s string) string { return strings.ReplaceAll(s, "-", `\u002d`) }

// chat answers the probe (request 1) with a good stream, then cycles
// through the echoes, each level starting with successes (a level whose
// first requests all fail with a 4xx is aborted).
func (h *hostileServer) chat(w http.ResponseWriter, r *http.Request) {
	n := h.chats.Add(1)
	auth := h.auth(r)
	hdr := r.Header.Get("X-Api-Key")
	cut := len(auth) / 2 // inside the credential, past "Bearer " or "Basic "
	sse := func(events ...string) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			fmt.Fprintf(w, "%s\n\n", e)
		}
	}
	token := `data: {"choices":[{"index":0,"delta":{"content":"tok"}}]}`
	done := []string{`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, "data: [DONE]"}
	switch (n - 1) % 6 {
	case 0:
		sse(append([]string{token, token, token}, done...)...)
	case 1: // escaped, as a finish_reason
		sse(token, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"`+jsonEscapeDashes(auth)+`"}]}`, "data: [DONE]")
	case 2: // plain, in an OpenAI error body
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"invalid credentials %s (x-api-key %s)","code":401}}`, auth, hdr)
	case 3: // JSON-escaped, in a body that is not JSON, so it is quoted raw
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, `upstream error {"detail":"%s","h":"%s"`, jsonEscapeDashes(auth), jsonEscapeDashes(hdr))
	case 4: // split across two data lines of an error event
		sse(token, "data: {\"error\":{\"message\":\"bad key "+auth[:cut]+"\ndata: "+auth[cut:]+"\",\"code\":500}}")
	case 5: // split across two data lines of a malformed event
		sse(append([]string{token, "data: oops " + auth[:cut] + "\ndata: " + auth[cut:] + " " + hdr}, done...)...)
	}
}

// leakForms are the forms in which a planted secret must not appear.
func leakForms() map[string]string {
	basic := base64.StdEncoding.EncodeToString([]byte(e2eUser + ":" + e2ePass))
	forms := map[string]string{
		"key": e2eKey, "password": e2ePass, "header": e2eHeader,
		"basic base64": strings.TrimRight(basic, "="), "key url-base64": url64("Bearer " + e2eKey),
	}
	for name, s := range map[string]string{"key": e2eKey, "password": e2ePass, "header": e2eHeader} {
		forms[name+` \u002d`] = jsonEscapeDashes(s)
		forms[name+` \\u002d`] = strings.ReplaceAll(s, "-", `\\u002d`)
	}
	return forms
}

// unfold undoes what an echo may have done to a secret, independently of
// the scrubber: HTML and JSON escapes of "-", and the whitespace or quoted
// "\n" of a split.
func unfold(s string) string {
	s = html.UnescapeString(s)
	s = strings.NewReplacer(`\\u002d`, "-", `\u002d`, "-", `\\n`, "", `\n`, "", `\"`, `"`).Replace(s)
	return strings.Join(strings.Fields(s), "")
}

// grepSecrets fails the test for any planted secret, in any form, in the
// run's stdout, stderr or any file of the run directory.
func grepSecrets(t *testing.T, run, stdout, stderr, dir string) {
	t.Helper()
	texts := map[string]string{"stdout": stdout, "stderr": stderr}
	files := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) && path == dir { // a failed check removes it
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		texts[filepath.Base(path)] = string(b)
		files++
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range texts {
		for _, view := range []string{text, unfold(text)} {
			for form, secret := range leakForms() {
				if i := strings.Index(view, secret); i >= 0 {
					t.Errorf("%s: %s holds the %s: …%s…", run, name, form, view[max(0, i-60):min(len(view), i+len(secret)+20)])
				}
			}
		}
	}
	t.Logf("%s: grepped stdout, stderr and %d files of %s", run, files, dir)
}

// TestNoSecretLeavesToksweep plants a unique key, URL user and password,
// and credential header, runs the real binary against a server that echoes
// them in every form (hostileServer), and greps stdout, stderr and every
// file of the run directory (report.html and the charts included) for any
// of them, plain, Basic-encoded, escaped or split.
func TestNoSecretLeavesToksweep(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	h := startHostile(t)
	url := strings.Replace(h.srv.URL, "://", "://"+e2eUser+":"+e2ePass+"@", 1) + "/v1"
	run := func(name string, wantCode int, args ...string) (stdout, stderr, out string) {
		t.Helper()
		out = filepath.Join(t.TempDir(), "run")
		h.chats.Store(0) // each run's probe is request 1
		var o, e bytes.Buffer
		cmd := toksweepCmd(bin, append([]string{"sweep", "--url", url, "--out", out, "--connect-timeout", "5s", "--request-timeout", "10s"}, args...)...)
		cmd.Env = append(os.Environ(), "OPENAI_API_KEY=")
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != wantCode {
			t.Errorf("%s: exit %d, want %d\n%s", name, code, wantCode, e.String())
		}
		grepSecrets(t, name, o.String(), e.String(), out)
		return o.String(), e.String(), out
	}

	// The model ids echo the key: 5000 of them, one with a newline and
	// a 3 KB one. The usage error lists a bounded few, on one line.
	ids := []string{"m-ok", "evil {{auth}}\nsecond line", "long-" + strings.Repeat("x", 3000)}
	for i := range 4997 {
		ids = append(ids, fmt.Sprintf("filler-%d", i))
	}
	h.setIDs(ids...)
	_, stderr, _ := run("model list", ExitUsage, "--api-key", e2eKey)
	usage := stderr[strings.Index(stderr, "toksweep: the server serves"):] // after Go's log line, if any
	if lines := strings.Count(strings.TrimSpace(usage), "\n") + 1; lines != 1 || len(usage) > 2000 ||
		!strings.Contains(usage, "and 4990 more") || !strings.Contains(usage, "[REDACTED]") {
		t.Errorf("model list: want one bounded line that lists 10 ids, scrubbed; got %d lines, %d bytes:\n%.600s", lines, len(usage), stderr)
	}
	h.setIDs("{{auth}}")
	_, stderr, _ = run("the only model id", ExitUsage, "--api-key", e2eKey)
	if !strings.Contains(stderr, "give --model") {
		t.Errorf("the only model id is the key: %s", stderr)
	}

	// A sweep with the key also in a plain header and in --extra-body, and
	// one with the URL's user and password alone (sent as Basic).
	h.setIDs("m-ok")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"bearer", []string{"--api-key", e2eKey, "--header", "X-Api-Key: " + e2eHeader, "--header", "X-Trace: " + e2eKey,
			"--extra-body", `{"user":"` + e2eKey + `","metadata":{"` + e2eKey + `":["` + e2ePass + `"]}}`}},
		{"basic", []string{"--header", "X-Api-Key: " + e2eHeader}},
	} {
		args := append([]string{"--model", "m-ok", "--levels", "1,2", "--requests", "12", "--metrics-interval", "100ms"}, tc.args...)
		_, _, out := run(tc.name, ExitOK, args...)
		var echoed int
		for _, r := range readRecords(t, out) {
			if strings.Contains(r.Error+r.FinishReason, "[REDACTED]") {
				echoed++
			}
		}
		if echoed < 8 {
			t.Errorf("%s: %d records quote a scrubbed echo, want at least 8: the echoes did not happen", tc.name, echoed)
		}
		if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
			t.Errorf("%s: no report.html to grep: %v", tc.name, err)
		}
	}
	h.mu.Lock()
	var bearer, basic bool
	for _, a := range h.auths {
		bearer = bearer || a == "Bearer "+e2eKey
		basic = basic || a == "Basic "+base64.StdEncoding.EncodeToString([]byte(e2eUser+":"+e2ePass))
	}
	h.mu.Unlock()
	if !bearer || !basic || h.metrics.Load() == 0 || h.unsolicited.Load() == 0 {
		t.Errorf("the hostile server saw bearer %v, basic %v, %d scrapes, %d unsolicited writes: not every echo was tried",
			bearer, basic, h.metrics.Load(), h.unsolicited.Load())
	}
	if n := h.stolen.Load(); n > 0 {
		t.Errorf("the metrics redirect was followed %d times: another port received the credentials", n)
	}
}
