package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
	"github.com/toksweep/toksweep/sim/simtest"
)

// The planted secrets: none may appear in anything toksweep writes.
const (
	plantedKey    = "sk-planted-7f3a9c0e1d2b"
	plantedHeader = "hdr-planted-5e8d21"
	plantedURLPw  = "urlpw-planted-44b1"
)

// assertNoSecrets greps stdout, stderr and every file under dir for the
// planted secrets.
func assertNoSecrets(t *testing.T, stdout, stderr, dir string) {
	t.Helper()
	texts := map[string]string{"stdout": stdout, "stderr": stderr}
	if dir != "" {
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			texts[path] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, text := range texts {
		for _, secret := range []string{plantedKey, plantedHeader, plantedURLPw} {
			if strings.Contains(text, secret) {
				t.Errorf("%s contains the secret %q", name, secret)
			}
		}
	}
}

// TestAPIKeyNeverWritten runs sweeps against a server that requires the key
// and quotes the Authorization header back in its error bodies, error
// events and malformed chunks, with the key given by flag and by
// environment, and greps every output for it.
func TestAPIKeyNeverWritten(t *testing.T) {
	for _, via := range []string{"flag", "env"} {
		t.Run(via, func(t *testing.T) {
			p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
				p.apiKey, p.echoAuth = plantedKey, true
				p.fail = statusWhen(500, func(n int64) bool { return n%4 == 0 })
				p.fault = func(n int64) streamFault {
					switch n % 4 {
					case 2:
						return streamFault{kind: faultMalformed, after: 1}
					case 3:
						return streamFault{kind: faultErrorEvent, after: 1, event: `{"error":{"message":"bad key {{auth}}","code":500}}`}
					}
					return streamFault{}
				}
			})
			url := strings.Replace(p.url(), "://", "://user:"+plantedURLPw+"@", 1)
			out := t.TempDir()
			args := []string{"sweep", "--url", url, "--levels", "1,2", "--requests", "4", "--out", out,
				"--header", "X-Api-Key: " + plantedHeader, "--header", "X-Trace: visible-123"}
			if via == "flag" {
				args = append(args, "--api-key", plantedKey)
				t.Setenv("OPENAI_API_KEY", "")
			} else {
				t.Setenv("OPENAI_API_KEY", plantedKey)
			}
			code, stdout, stderr := runCLI(t, context.Background(), args...)
			if code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			assertNoSecrets(t, stdout, stderr, out)
			// The failures did happen, and their messages were kept, scrubbed.
			var sawEcho bool
			for _, r := range readRecords(t, out) {
				sawEcho = sawEcho || strings.Contains(r.Error, "[REDACTED]")
			}
			if !sawEcho {
				t.Error("no record quotes the scrubbed header: the test did not exercise the echo")
			}
			var sum struct {
				Config struct {
					APIKeySet bool              `json:"api_key_set"`
					Headers   map[string]string `json:"headers"`
					Insecure  bool              `json:"insecure"`
				} `json:"config"`
			}
			readJSON(t, filepath.Join(out, "summary.json"), &sum)
			c := sum.Config
			if !c.APIKeySet || c.Headers["X-Api-Key"] != "REDACTED" || c.Headers["X-Trace"] != "visible-123" || c.Insecure {
				t.Errorf("summary.json config: api_key_set %v, headers %v, insecure %v; want true, X-Api-Key redacted, X-Trace kept, false",
					c.APIKeySet, c.Headers, c.Insecure)
			}
		})
	}
}

// TestSecretsNotInErrors: a rejected key that the server quotes back, a
// malformed credential header and a URL with a password never show in the
// one-line errors.
func TestSecretsNotInErrors(t *testing.T) {
	p := startPaced(t, 10*time.Millisecond, 5*time.Millisecond, 4, func(p *pacedServer) {
		p.apiKey, p.echoAuth = "the-right-key", true
	})
	t.Setenv("OPENAI_API_KEY", "")
	url := strings.Replace(p.url(), "://", "://user:"+plantedURLPw+"@", 1)
	cases := [][]string{
		{"--url", url, "--api-key", plantedKey},                          // 401 quoting the key, while listing models
		{"--url", url, "--api-key", plantedKey, "--model", "paced"},      // the same on the probe
		{"--url", url, "--header", "Authorization Bearer " + plantedKey}, // malformed header: usage error
		{"--url", url, "--header", "X-Api-Key=" + plantedHeader},         // malformed header: usage error
		{"--url", "ftp://user:" + plantedURLPw + "@host/v1"},             // bad URL: usage error
		{"--url", url, "--api-key", plantedKey + "\n"},                   // a stray newline in the key
	}
	for _, args := range cases {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, context.Background(), append([]string{"sweep", "--out", out}, args...)...)
		if code == ExitOK {
			t.Errorf("%q: exit 0, want a failure", args)
		}
		assertNoSecrets(t, stdout, stderr, out)
	}
}

// TestTLSVerifiedUnlessInsecure: a self-signed certificate is refused by
// default (see TestPreflightFailures) and accepted with --insecure, which
// summary.json records.
func TestTLSVerifiedUnlessInsecure(t *testing.T) {
	t.Parallel()
	p := startPacedTLS(t, 10*time.Millisecond, 5*time.Millisecond, 4)
	out := t.TempDir()
	code, _, stderr := runCLI(t, context.Background(), "sweep", "--url", p.url(), "--insecure",
		"--levels", "1", "--requests", "2", "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var sum struct {
		Config struct {
			Insecure bool `json:"insecure"`
		} `json:"config"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	if !sum.Config.Insecure {
		t.Error("summary.json does not record --insecure")
	}
}

// TestURLQuerySecretNotPrinted: a key in the URL's query (some gateways
// take ?api-key=) is dropped wherever toksweep prints or saves the URL.
func TestURLQuerySecretNotPrinted(t *testing.T) {
	t.Parallel()
	p := startPaced(t, 5*time.Millisecond, 2*time.Millisecond, 3)
	out := t.TempDir()
	url := p.url() + "?api-key=" + plantedKey
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", url, "--model", "paced",
		"--levels", "1", "--requests", "1", "--out", out)
	if code != ExitOK && code != ExitFailure {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	assertNoSecrets(t, stdout, stderr, out)
	dead := rawserver.Closed(t)
	for _, bad := range []string{"http://" + dead + "/v1?api-key=" + plantedKey, "http://user:" + plantedURLPw + "@" + dead + "/v1"} {
		code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", bad, "--levels", "1", "--out", t.TempDir(), "--connect-timeout", "1s")
		if code != ExitFailure {
			t.Errorf("%s: exit %d, want 1", bad, code)
		}
		assertNoSecrets(t, stdout, stderr, "")
	}
}

// TestMetricsCredentialsOnlyToTheNamedHostAndPort: the key and headers go
// with a scrape only to --url's scheme, host and port, as written.
func TestMetricsCredentialsOnlyToTheNamedHostAndPort(t *testing.T) {
	t.Parallel()
	o := &options{URL: "http://api:8000/v1", APIKey: plantedKey}
	for raw, want := range map[string]bool{
		"http://api:8000/metrics":       true,
		"http://api:8000/other/metrics": true,
		"http://api:9090/metrics":       false, // another port on the same host
		"https://api:8000/metrics":      false, // another scheme
		"http://api/metrics":            false, // the default port, not the one named
		"http://api.evil:8000/metrics":  false,
		"http://evil@api:8000/metrics":  true, // userinfo the user wrote is theirs
	} {
		if got := metricsHeader(raw, o).Get("Authorization") != ""; got != want {
			t.Errorf("metricsHeader(%q) sends the key: %v, want %v", raw, got, want)
		}
	}
}

// TestGPUMetricsURLSecretsNeverWritten: the credentials of a
// --gpu-metrics-url (userinfo, a token in the query) are redacted in
// summary.json's gpu_metrics_urls and never written anywhere, by a run
// that scrapes it and by one whose endpoint answers an error quoting
// them back.
func TestGPUMetricsURLSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	cfg := serveSimConfig(t, "--preset", "fast", "--gpus", "1")
	srv := simtest.NewServer(cfg)
	t.Cleanup(srv.Close)
	withSecrets := func(base string) string {
		return strings.Replace(base, "http://", "http://gpu:"+plantedURLPw+"@", 1) + "/gpu/metrics?token=" + plantedKey
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--levels", "1", "--requests", "2",
		"--max-tokens", "8", "--gpu-metrics-url", withSecrets(srv.URL), "--out", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	assertNoSecrets(t, stdout, stderr, out)
	var sum struct {
		Config struct {
			GPU []string `json:"gpu_metrics_urls"`
		} `json:"config"`
	}
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil || len(sum.Config.GPU) != 1 || !strings.Contains(sum.Config.GPU[0], "/gpu/metrics") {
		t.Errorf("summary.json gpu_metrics_urls %q (%v): want the endpoint, redacted", sum.Config.GPU, err)
	}
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		http.Error(w, fmt.Sprintf("no GPUs for %s:%s at %s", u, p, r.URL), http.StatusInternalServerError)
	}))
	t.Cleanup(echo.Close)
	code, stdout, stderr = runCLI(t, context.Background(), "sweep", "--url", srv.URL+"/v1", "--levels", "1", "--requests", "2",
		"--gpu-metrics-url", withSecrets(echo.URL), "--out", filepath.Join(t.TempDir(), "run"))
	if code == ExitOK {
		t.Errorf("an endpoint that answers 500 was accepted: %s", stderr)
	}
	assertNoSecrets(t, stdout, stderr, "")
}
