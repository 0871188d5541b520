package preflight

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
)

// checkFailed makes a failed check before the sweep (the model listing or
// the pre-flight request) one line that says no load was sent and, when the
// cause is recognisable, what to change. listing is set for the model
// listing, which --model skips.
func checkFailed(err error, listing bool) error {
	prefix := "pre-flight check failed, no load sent"
	var re *client.RequestError
	if !errors.As(err, &re) {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	if listing && re.Status != 0 && re.Status != http.StatusUnauthorized && re.Status != http.StatusForbidden {
		prefix = "listing the server's models failed (give --model to skip it)"
	}
	judged := *re
	if re.Class == client.StreamError { // an error event in a 200 stream: judged by the code it carries
		judged.Status = client.EventCode(re.Message)
	}
	if h := checkHint(&judged, listing); h != "" {
		return fmt.Errorf("%s: %w (%s)", prefix, err, h)
	}
	return fmt.Errorf("%s: %w", prefix, err)
}

// checkHint says which flag most likely needs changing. 401 and 403 need
// none: the client's message already names --api-key.
func checkHint(re *client.RequestError, listing bool) string {
	msg := strings.ToLower(re.Message)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(msg, w) {
				return true
			}
		}
		return false
	}
	switch {
	case re.Class == client.Connect && has("refused"):
		return "is the server running, and are the host and port in --url right?"
	case re.Class == client.Connect && has("no such host", "server misbehaving"):
		return "check the host name in --url"
	case re.Class == client.Connect && has("http response to https client", "does not look like a tls handshake"):
		return "the server speaks plain HTTP: use http:// in --url"
	case re.Class == client.Connect && has("x509", "certificate"):
		return "for a self-signed certificate, pass --insecure (it is recorded in summary.json)"
	case re.Class == client.Connect && has("timeout", "timed out"):
		return "check the host and port in --url, or raise --connect-timeout"
	case re.Class == client.Timeout:
		return "the server accepted the connection but did not answer in time; raise --request-timeout if it is only slow"
	case re.Status == http.StatusBadRequest && has("https server"):
		return "the server speaks HTTPS: use https:// in --url"
	case re.Status == http.StatusNotFound && listing:
		return "does --url end in /v1?"
	case re.Status == http.StatusNotFound:
		return "check --model and --url; omit --model to use the one model the server lists"
	case re.Status == http.StatusBadRequest || re.Status == http.StatusRequestEntityTooLarge || re.Status == http.StatusUnprocessableEntity:
		return "check --max-tokens, the prompt and --extra-body against what the model accepts"
	}
	return ""
}

// missingV1 checks, after a check before the sweep failed with err, whether
// --url only lacks its /v1 (vLLM serves the API under /v1; its --base-url
// users often type the server's root): when err is a 404 and <url>/v1/models
// answers, it returns the usage error that says so, else nil. The URL is not
// changed silently: the user's --url stays what summary.json records.
func missingV1(ctx context.Context, cfg client.Config, err error) error {
	var re *client.RequestError
	if !errors.As(err, &re) || re.Status != http.StatusNotFound {
		return nil
	}
	given := cfg.BaseURL
	u, perr := url.Parse(given)
	if perr != nil || strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return nil
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/v1"
	cfg.BaseURL = u.String()
	cl, cerr := client.New(cfg)
	if cerr != nil {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout+listingWait)
	defer cancel()
	if _, lerr := cl.ListModels(lctx); lerr != nil {
		return nil
	}
	v1 := client.RedactURL(cfg.BaseURL)
	return mode.Usagef("did you mean --url %s? %s answers 404 but %s/models answers; no load sent", v1, client.RedactURL(given), v1)
}

// transient reports whether a pre-flight failure is the server's momentary
// state (5xx, 429, an error event that says so) rather than a wrong URL,
// key, model, prompt or length. An error event inside a 200 stream is
// judged like the status it carries; without one, by its words.
func transient(err error) bool {
	var re *client.RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Class {
	case client.HTTP5xx, client.HTTP429:
		return true
	case client.StreamError:
		if code := client.EventCode(re.Message); code != 0 {
			return code >= 500 || code == 429
		}
		return momentary(re.Message)
	}
	return false
}

// momentary reports whether an error's words describe a passing state.
func momentary(msg string) bool {
	msg = strings.ToLower(msg)
	for _, w := range []string{"queue is full", "overloaded", "try again", "too many requests", "busy", "unavailable", "rate limit"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}
