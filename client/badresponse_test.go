package client

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
)

// rawServer serves reply to every request (see rawserver.New) until the
// test ends, and returns the base URL (without /v1).
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	s := rawserver.New(reply)
	t.Cleanup(s.Close)
	return s.URL
}

// TestInvalidResponseIsNotConnect: a server that accepts the connection
// and answers with something that is not an HTTP response is named for
// what it did, for the probe, a measured request, the model listing and
// the warm-up alike, never "cannot connect".
func TestInvalidResponseIsNotConnect(t *testing.T) {
	t.Parallel()
	hugeHeader := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 11<<20) + "\r\n\r\n" // over net/http's 10 MiB
	cases := []struct {
		name  string
		reply string
		want  string
	}{
		{"garbage status line", "garbage\r\n\r\n", `malformed HTTP response "garbage"`},
		{"another protocol", "SSH-2.0-OpenSSH_9.6\r\n", `malformed HTTP response "SSH-2.0-OpenSSH_9.6"`},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", `malformed HTTP status code "2x0"`},
		{"bad header line", "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "malformed MIME header: missing colon"},
		{"header over the limit", hugeHeader, "response header too large (server response headers exceeded "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := rawServer(t, tc.reply)
			c := newClient(t, url, Config{ConnectTimeout: 2 * time.Second, RequestTimeout: 20 * time.Second})
			ctx := context.Background()
			check := func(what string, err error, wantURL string) {
				t.Helper()
				var re *RequestError
				if !errors.As(err, &re) {
					t.Fatalf("%s: %v, want a *RequestError", what, err)
				}
				line := re.Error()
				if re.Class != Malformed || re.Status != 0 || strings.Contains(line, "cannot connect") ||
					!strings.HasPrefix(line, "invalid HTTP response from "+wantURL+": ") || !strings.Contains(line, tc.want) {
					t.Errorf("%s: class %q status %d: %s\nwant class malformed, status 0, %q", what, re.Class, re.Status, line, tc.want)
				}
			}
			check("Probe", c.Probe(ctx, Prompt{Text: "hi"}), url+"/v1/chat/completions")
			_, err := c.ListModels(ctx)
			check("ListModels", err, url+"/v1/models")
			check("WarmConns", c.WarmConns(ctx, 1), url+"/v1/models")
			rec := c.Do(ctx, Prompt{Text: "hi"})
			if rec.ErrorClass != Malformed || !strings.HasPrefix(rec.Error, "invalid HTTP response: ") || !strings.Contains(rec.Error, tc.want) {
				t.Errorf("Do: %s: %s", rec.ErrorClass, rec.Error)
			}
		})
	}
}

// TestInvalidResponseWords: only net/http's words for a reply it cannot
// parse count as an invalid response; network failures stay Connect.
func TestInvalidResponseWords(t *testing.T) {
	for _, err := range []error{
		errors.New("EOF"), &net.OpError{Op: "dial", Err: errors.New("connection refused")},
		errors.New("net/http: HTTP/1.x transport connection broken: read: connection reset by peer"),
	} {
		if got := invalidResponse(err); got != "" {
			t.Errorf("invalidResponse(%v) = %q, want \"\"", err, got)
		}
	}
}
