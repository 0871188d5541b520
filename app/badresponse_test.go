package app

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestGarbageReplyIsNamed: a server that accepts connections and answers
// with something that is not HTTP fails the pre-flight check with one line
// that says so, not "cannot connect".
func TestGarbageReplyIsNamed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(conn)); err == nil {
					_, _ = io.WriteString(conn, "garbage\r\n\r\n")
				}
			}()
		}
	}()
	url := "http://" + ln.Addr().String() + "/v1"
	for _, extra := range [][]string{nil, {"--model", "m"}} { // the model listing, then the probe
		args := append([]string{"sweep", "--url", url, "--levels", "1", "--requests", "1", "--out", t.TempDir()}, extra...)
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != ExitFailure {
			t.Fatalf("%v: exit %d, want 1\n%s", extra, code, stderr)
		}
		assertOneLine(t, stderr)
		if !strings.Contains(stderr, `invalid HTTP response from `+url) || !strings.Contains(stderr, `malformed HTTP response "garbage"`) ||
			strings.Contains(stderr, "cannot connect") {
			t.Errorf("%v: %s", extra, stderr)
		}
	}
}
