package rawserver

import (
	"net/http"
	"strings"
	"testing"
)

func TestNewAnswersWithTheReply(t *testing.T) {
	s := New("HTTP/1.1 418 I'm a teapot\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
	resp, err := http.Get(s.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 418 {
		t.Errorf("status %d, want the reply's 418", resp.StatusCode)
	}
	g := New("garbage\r\n\r\n")
	defer g.Close()
	if _, err := http.Get(g.URL); err == nil || !strings.Contains(err.Error(), "malformed HTTP response") {
		t.Errorf("garbage reply: err %v, want a malformed HTTP response", err)
	}
	s.Close()
	if resp, err := http.Get(s.URL + "/x"); err == nil {
		resp.Body.Close()
		t.Error("the server still answers after Close")
	}
}
