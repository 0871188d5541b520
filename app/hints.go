package app

import (
	"errors"
	"fmt"
	"net/http"
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
	if h := checkHint(re, listing); h != "" {
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
