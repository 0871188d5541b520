package client

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

const planted = "sk-PLANTED-SECRET"

// leaks reports whether s holds the planted key or any 6-byte piece of it,
// as a message cut in the middle of the key would.
func leaks(s string) bool {
	for i := 0; i+6 <= len(planted); i++ {
		if strings.Contains(s, planted[i:i+6]) {
			return true
		}
	}
	return false
}

// TestKeyNeverLeaks plants a key, has servers echo it back in every way a
// failure can quote them, and checks every string the package produces.
func TestKeyNeverLeaks(t *testing.T) {
	t.Parallel()
	echo := func(status int, format string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			fmt.Fprintf(w, format, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"))
		}
	}
	// pad puts the key across the cut of a quoted body, or of a quoted
	// malformed event (at 60 bytes).
	pad := strings.Repeat("x", maxRawBody-10)
	handlers := map[string]http.HandlerFunc{
		"401 json":     echo(401, `{"error":{"message":"invalid key %s / %s","code":401}}`),
		"500 text":     echo(500, pad+"%s %s"),
		"stream error": echo(200, `data: {"error":{"message":"bad key %s %s","code":429}}`+"\n\n"),
		"malformed":    echo(200, `data: {"choices":[{"delta":{"content":"`+pad[:10]+`%s%s`+"\n\ndata: [DONE]\n\n"),
		"stall":        func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() },
	}
	var produced []string
	for name, h := range handlers {
		srv := newServer(t, h)
		base := strings.Replace(srv.URL, "http://", "http://user:"+planted+"@", 1) + "/v1"
		cfg := Config{BaseURL: base, APIKey: planted, Model: "m", RequestTimeout: 100 * time.Millisecond,
			Headers: http.Header{"X-Api-Key": {"k2-" + planted}}}
		c, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rec := c.Do(context.Background(), Prompt{Text: "x"})
		if rec.OK() {
			t.Errorf("%s: no failure", name)
		}
		js, _ := json.Marshal(rec)
		produced = append(produced, name, rec.Error, string(js), fmt.Sprint(c.Probe(context.Background(), Prompt{})))
		_, err = c.ListModels(context.Background())
		produced = append(produced, fmt.Sprint(err), fmt.Sprintf("%v %+v %s", c, c, c),
			fmt.Sprintf("%+v", cfg.Redacted()))
	}
	closed := "http://user:" + planted + "@" + closedPort(t) + "/v1"
	c, err := New(Config{BaseURL: closed, APIKey: planted})
	if err != nil {
		t.Fatal(err)
	}
	rec := c.Do(context.Background(), Prompt{})
	produced = append(produced, rec.Error, fmt.Sprint(c.Probe(context.Background(), Prompt{})))
	for _, bad := range []string{"ftp://" + planted + "@host/v1", "http://u:" + planted + "@[::1/v1", planted + "@host"} {
		_, err := New(Config{BaseURL: bad, APIKey: planted})
		produced = append(produced, fmt.Sprint(err))
	}
	for _, s := range produced {
		if leaks(s) {
			t.Errorf("the key leaks: %s", s)
		}
	}
	t.Logf("checked %d strings, e.g. %q", len(produced), produced[1])
}

// TestScrubForms: every form in which a server may echo a credential that
// toksweep sent is redacted, and text without one is left alone.
func TestScrubForms(t *testing.T) {
	t.Parallel()
	const key, pw = "sk-PLANTED-SECRET", "pw-Pl4nted"
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + pw))
	cfg := Config{
		BaseURL: "http://alice:" + pw + "@127.0.0.1:1/v1?api-key=qk-PLANTED&x=1", APIKey: key,
		Headers: http.Header{"X-Api-Key": {"hk-PLANTED"}, "X-Forward": {"Bearer fk-PLANTED"},
			"Proxy-Authorization": {"Basic " + base64.StdEncoding.EncodeToString([]byte("bob:bobs-PLANTED"))}},
	}
	scrub := Scrubber(cfg, "http://mu:mpw-PLANTED@127.0.0.1:2/metrics")
	hidden := []string{"PLANTED", "Pl4nted", strings.TrimRight(basic, "="),
		base64.RawStdEncoding.EncodeToString([]byte("bob:bobs-PLANTED"))}
	echoes := []string{
		key, "Bearer " + key, "Basic " + basic, basic, strings.TrimRight(basic, "="),
		`{"error":{"message":"bad key sk\u002dPLANTED\u002dSECRET"}}`,
		`"sk\\u002dPLANTED-SECRET"`, // a JSON string of an escaped one
		`sk\x2dPLANTED-SECRET`, "sk%2DPLANTED-SECRET", "sk&#45;PLANTED&#x2d;SECRET",
		"sk-PLAN\nTED-SECRET", `"sk-PLAN\nTED-SECRET"`, "sk-PLAN\r\n TED-SECRET",
		"qk-PLANTED", "hk-PLANTED", "fk-PLANTED", "bobs-PLANTED", "mpw-PLANTED",
		"alice:" + pw, "alice%3A" + pw, "pw%2DPl4nted",
	}
	for _, e := range echoes {
		got := scrub("before " + e + " after")
		for _, h := range hidden {
			if strings.Contains(got, h) {
				t.Errorf("scrub(%q) = %q: %q survives", e, got, h)
			}
		}
		if !strings.HasPrefix(got, "before ") || !strings.HasSuffix(got, " after") || !strings.Contains(got, "[REDACTED]") {
			t.Errorf("scrub(%q) = %q, want the secret alone replaced", e, got)
		}
	}
	for _, plain := range []string{"", "HTTP 500: internal error", `{"a":"\u00e9\n"}`, "100% done &#33;", `C:\x\y`} {
		if got := scrub(plain); got != plain {
			t.Errorf("scrub(%q) = %q, want it unchanged", plain, got)
		}
	}
}

// The echoes the scrubber missed (issue 25, item 20): the key in base64 or
// hex, in upper case, with a zero-width space inside, split by HTML tags.
// Ordinary text with tags, capitals and invisible characters is kept.
func TestScrubEncodedAndSplitEchoes(t *testing.T) {
	t.Parallel()
	const key = "sk-PLANTED-7f3a9c2e1b"
	scrub := Scrubber(Config{APIKey: key})
	for _, e := range []string{
		"c2stUExBTlRFRC03ZjNhOWMyZTFi", // base64
		base64.URLEncoding.EncodeToString([]byte(key)),
		hex.EncodeToString([]byte(key)), strings.ToUpper(hex.EncodeToString([]byte(key))),
		strings.ToUpper(key), "Sk-Planted-7F3A9C2E1B",
		`sk-PL\u200bANTED-7f3a9c2e1b`, "sk-PL\u200bANTED-7f3a9c2e1b", "sk-PLANTED-7f3a\ufeff9c2e1b",
		"sk-PLA<b></b>NTED-7f3a9c2e1b", `sk-<span class="k">PLANTED</span>-7f3a9c2e1b`,
	} {
		got := scrub("key " + e + " refused")
		if got != "key [REDACTED] refused" {
			t.Errorf("scrub(%q) = %q", e, got)
		}
	}
	for _, plain := range []string{"<b>Bad Request</b>: SK-OTHER", "a\u200bb", "DEADBEEF"} {
		if got := scrub(plain); got != plain {
			t.Errorf("scrub(%q) = %q, want it unchanged", plain, got)
		}
	}
}

// TestScrubCutSecret: a secret cut by a bound applied before the scrub
// (a message cut at N bytes) is redacted from where it starts, while an
// ordinary word that happens to start a secret is kept.
func TestScrubCutSecret(t *testing.T) {
	t.Parallel()
	scrub := Scrubber(Config{BaseURL: "http://h/v1", APIKey: "sk-PLANTED-SECRET"})
	for in, want := range map[string]string{
		"bad key sk-PLANTED-SE":      "bad key [REDACTED]",
		"bad key sk-PLANT...":        "bad key [REDACTED]...",
		"bad key sk-PLAN\nTED-S…":    "bad key [REDACTED]…",
		"bad key Bearer sk-PLANTED":  "bad key Bearer [REDACTED]",
		"bad key sk-PLA":             "bad key sk-PLA", // 6 bytes: too short to tell
		"sk-PLANTED-SECRET and more": "[REDACTED] and more",
		"the scheme must be Bearer":  "the scheme must be Bearer",
	} {
		if got := scrub(in); got != want {
			t.Errorf("scrub(%q) = %q, want %q", in, got, want)
		}
	}
}
