package preflight

import (
	"errors"
	"testing"

	"github.com/toksweep/toksweep/client"
)

// checkFailed says no load was sent, names the listing when it was the
// listing that failed for another reason than the key, and adds the flag
// most likely to change.
func TestCheckFailed(t *testing.T) {
	t.Parallel()
	const pre, list = "pre-flight check failed, no load sent: ", "listing the server's models failed (give --model to skip it): "
	for _, tc := range []struct {
		re      *client.RequestError
		listing bool
		prefix  string
		hint    string
	}{
		{&client.RequestError{Class: client.Connect, Message: "connect: connection refused"}, true, pre, "is the server running, and are the host and port in --url right?"},
		{&client.RequestError{Class: client.Connect, Message: "dial tcp: lookup x: no such host"}, false, pre, "check the host name in --url"},
		{&client.RequestError{Class: client.Connect, Message: "http: server gave HTTP response to HTTPS client"}, false, pre, "the server speaks plain HTTP: use http:// in --url"},
		{&client.RequestError{Class: client.Connect, Message: "tls: failed to verify certificate: x509: unknown authority"}, false, pre, "for a self-signed certificate, pass --insecure (it is recorded in summary.json)"},
		{&client.RequestError{Class: client.Connect, Message: "i/o timeout"}, false, pre, "check the host and port in --url, or raise --connect-timeout"},
		{&client.RequestError{Class: client.Timeout, Message: "deadline"}, false, pre, "the server accepted the connection but did not answer in time; raise --request-timeout if it is only slow"},
		{&client.RequestError{Class: client.HTTP4xx, Status: 400, Message: "Client sent an HTTP request to an HTTPS server."}, true, list, "the server speaks HTTPS: use https:// in --url"},
		{&client.RequestError{Class: client.HTTP4xx, Status: 404, Message: "not found"}, true, list, "does --url end in /v1?"},
		{&client.RequestError{Class: client.HTTP4xx, Status: 404, Message: "not found"}, false, pre, "check --model and --url; omit --model to use the one model the server lists"},
		{&client.RequestError{Class: client.HTTP4xx, Status: 422, Message: "bad"}, false, pre, "check --max-tokens, the prompt and --extra-body against what the model accepts"},
		{&client.RequestError{Class: client.StreamError, Status: 200, Message: "bad field (code 400)"}, false, pre, "check --max-tokens, the prompt and --extra-body against what the model accepts"},
		{&client.RequestError{Class: client.HTTP4xx, Status: 401, Message: "give --api-key"}, true, pre, ""},
		{&client.RequestError{Class: client.HTTP4xx, Status: 409, Message: "conflict"}, false, pre, ""},
	} {
		want := tc.prefix + tc.re.Error()
		if tc.hint != "" {
			want += " (" + tc.hint + ")"
		}
		err := checkFailed(tc.re, tc.listing)
		if err.Error() != want || !errors.Is(err, tc.re) {
			t.Errorf("checkFailed(%v, %v)\n got %q\nwant %q", tc.re, tc.listing, err, want)
		}
	}
	plain := errors.New("no answer")
	if err := checkFailed(plain, false); err.Error() != pre+"no answer" || !errors.Is(err, plain) {
		t.Errorf("checkFailed(plain) = %q", err)
	}
}

// transient: 5xx, 429 and an error event that carries one, or whose words
// say the state passes, are the server's moment; anything else is not.
func TestTransient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&client.RequestError{Class: client.HTTP5xx, Status: 503}, true},
		{&client.RequestError{Class: client.HTTP429, Status: 429}, true},
		{&client.RequestError{Class: client.StreamError, Message: "queue full (code 503)"}, true},
		{&client.RequestError{Class: client.StreamError, Message: "slow down (code 429)"}, true},
		{&client.RequestError{Class: client.StreamError, Message: "bad prompt (code 400)"}, false},
		{&client.RequestError{Class: client.StreamError, Message: "The Queue Is Full"}, true},
		{&client.RequestError{Class: client.StreamError, Message: "no such model"}, false},
		{&client.RequestError{Class: client.HTTP4xx, Status: 400, Message: "try again"}, false},
		{errors.New("overloaded"), false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
