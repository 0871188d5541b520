package client

import (
	"bytes"
	"context"
	"net/http"
	"testing"
)

// Send(Prepare(p)) is Do(p): the same body goes out and the same record
// comes back. Its Start is stamped by Send, not Prepare (the request is
// built off the clock), and a Prepared sent twice sends nothing the second
// time: a Connect failure that says so.
func TestPrepareThenSendIsDo(t *testing.T) {
	t.Parallel()
	events := [][]byte{
		[]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\n"),
		[]byte("data: {\"choices\":[{\"text\":\"b\",\"finish_reason\":\"length\"}]}\n\n"),
		[]byte("data: [DONE]\n\n"),
	}
	srv := newServer(t, replay(events, pace{}, nil))
	c := newClient(t, srv.URL, Config{API: Completions, MaxTokens: 2})
	p := Prompt{ID: 7, TokenIDs: []int{11, 22, 33}}
	ctx := context.Background()

	do := c.Do(ctx, p)
	doBody, _ := srv.last()
	pr := c.Prepare(ctx, p)
	before := c.Now()
	sent := c.Send(ctx, pr)
	sendBody, header := srv.last()
	if !bytes.Equal(sendBody, doBody) || header.Get("Accept") != "text/event-stream" {
		t.Errorf("Send sent %s (Accept %q), Do %s", sendBody, header.Get("Accept"), doBody)
	}
	for _, r := range []Record{do, sent} {
		if r.ErrorClass != OK || r.PromptID != 7 || len(r.ChunkAt) != 2 || r.FinishReason != "length" {
			t.Errorf("record %+v, want OK, prompt 7, 2 chunks, finish_reason length", r)
		}
	}
	if sent.Start < before {
		t.Errorf("Send's record started at %v, before Send was called (%v): stamped at Prepare", sent.Start, before)
	}

	conns := srv.connCount()
	again := c.Send(ctx, pr)
	if again.ErrorClass != Connect || again.Error == "" {
		t.Errorf("a Prepared sent twice: %s %q, want a Connect failure", again.ErrorClass, again.Error)
	}
	if body, _ := srv.last(); !bytes.Equal(body, sendBody) || srv.connCount() != conns {
		t.Error("a Prepared sent twice reached the server")
	}
}

// Prepare only builds: no connection is opened and nothing reaches the
// server before Send. A Send whose context has ended is recorded as
// Canceled, as Do's would be.
func TestPrepareSendsNothing(t *testing.T) {
	t.Parallel()
	srv := newServer(t, respond(http.StatusOK, "data: [DONE]\n\n"))
	c := newClient(t, srv.URL, Config{API: Completions})
	pr := c.Prepare(context.Background(), Prompt{Text: "hi"})
	if body, _ := srv.last(); body != nil || srv.connCount() != 0 {
		t.Fatalf("Prepare reached the server (%d connections, body %q)", srv.connCount(), body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := c.Send(ctx, pr); r.ErrorClass != Canceled {
		t.Errorf("Send with a canceled context: %s, want %s", r.ErrorClass, Canceled)
	}
}
