package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/toksweep/toksweep/client"
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
func missingV1(ctx context.Context, o *options, err error) error {
	var re *client.RequestError
	if !errors.As(err, &re) || re.Status != http.StatusNotFound {
		return nil
	}
	u, perr := url.Parse(o.URL)
	if perr != nil || strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return nil
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/v1"
	cfg := o.clientConfig()
	cfg.BaseURL = u.String()
	cl, cerr := client.New(cfg)
	if cerr != nil {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, o.ConnectTimeout+preflightTimeout)
	defer cancel()
	if _, lerr := cl.ListModels(lctx); lerr != nil {
		return nil
	}
	v1 := redactURL(cfg.BaseURL)
	return usagef("did you mean --url %s? %s answers 404 but %s/models answers; no load sent", v1, redactURL(o.URL), v1)
}
