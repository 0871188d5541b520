package client

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawServer accepts connections on 127.0.0.1, reads each request's head
// and answers with reply, byte for byte, then closes the connection. It
// returns the base URL (without /v1).
func rawServer(t *testing.T, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err != nil {
					return
				}
				_, _ = conn.Write([]byte(reply))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
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
