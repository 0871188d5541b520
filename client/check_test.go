package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The pre-flight reads its answer to the end and returns the measured
// record: the fixture's five content chunks and its usage.
func TestCheckReadsToTheEnd(t *testing.T) {
	srv := newServer(t, replay(splitEvents(readFile(t, sseDir, "multi-token.sse")), pace{}, nil))
	c := newClient(t, srv.URL, Config{})
	rec, err := c.Check(context.Background(), Prompt{ID: 7, Text: "hi", MaxTokens: 32})
	if err != nil {
		t.Fatal(err)
	}
	if rec.PromptID != 7 || !rec.OK() || len(rec.ChunkAt) != 5 || rec.CompletionTokens != 10 || rec.PromptTokens != 5 {
		t.Errorf("record: prompt %d ok %v chunks %d usage %d/%d, want 7 true 5 5/10",
			rec.PromptID, rec.OK(), len(rec.ChunkAt), rec.PromptTokens, rec.CompletionTokens)
	}
	if body, _ := srv.last(); !strings.Contains(string(body), `"max_tokens":32`) {
		t.Errorf("the prompt's MaxTokens was not sent: %s", body)
	}
}

// An error event inside a 200 stream fails the pre-flight like the status
// it carries, and the record says why.
func TestCheckFailsOnAnErrorEvent(t *testing.T) {
	events := "data: {\"error\":{\"message\":\"This model's maximum context length is 1024 tokens\",\"type\":\"BadRequestError\",\"code\":400}}\n\ndata: [DONE]\n\n"
	srv := newServer(t, replay(splitEvents([]byte(events)), pace{}, nil))
	c := newClient(t, srv.URL, Config{})
	rec, err := c.Check(context.Background(), Prompt{Text: "hi"})
	var re *RequestError
	if !errors.As(err, &re) || re.Class != StreamError {
		t.Fatalf("err = %v, want a stream error", err)
	}
	if got := EventCode(re.Message); got != http.StatusBadRequest {
		t.Errorf("EventCode(%q) = %d, want 400", re.Message, got)
	}
	if rec.ErrorClass != StreamError || !strings.Contains(rec.Error, "maximum context length") {
		t.Errorf("record: class %v error %q", rec.ErrorClass, rec.Error)
	}
}

func TestEventCode(t *testing.T) {
	for msg, want := range map[string]int{
		"too long (code 400)":          400,
		"queue full (code 503)":        503,
		"a (code 400) then (code 429)": 429, // the last one, as errorEventInfo appends it
		"no code":                      0,
		"(code 40)":                    0,
		"(code abc)":                   0,
		"(code 099)":                   0,
		"(code 4000)":                  0,
		"":                             0,
	} {
		if got := EventCode(msg); got != want {
			t.Errorf("EventCode(%q) = %d, want %d", msg, got, want)
		}
	}
}

// A model id from the server is quoted without the credential, on one line,
// cut to 100 bytes, and used as --model only when it is short, printable
// and free of credentials.
func TestModelIDFromTheServer(t *testing.T) {
	const key = "sk-check-0123456789abcdef"
	c := newClient(t, "http://127.0.0.1:1", Config{APIKey: key})
	if got := c.ShowModelID("model-" + key + "\nnext"); strings.Contains(got, key) || strings.Contains(got, "\n") {
		t.Errorf("ShowModelID leaked or kept the newline: %q", got)
	}
	if got := c.ShowModelID(strings.Repeat("m", 300)); len(got) > maxShownModelID+len("…") {
		t.Errorf("ShowModelID kept %d bytes", len(got))
	}
	for id, want := range map[string]bool{
		"Qwen/Qwen2.5-7B-Instruct": true,
		"":                         false,
		strings.Repeat("m", 257):   false,
		strings.Repeat("m", 256):   true,
		"two\nlines":               false,
		"org/" + key:               false,
	} {
		if got := c.UsableModelID(id); got != want {
			t.Errorf("UsableModelID(%.20q…) = %v, want %v", id, got, want)
		}
	}
}

// Latency counts from the scheduled instant when there is one.
func TestOrigin(t *testing.T) {
	open := Record{Sched: 5 * time.Millisecond, Start: 7 * time.Millisecond}
	closed := Record{Start: 7 * time.Millisecond}
	if open.Origin() != 5*time.Millisecond || closed.Origin() != 7*time.Millisecond {
		t.Errorf("Origin: open %v closed %v, want 5ms 7ms", open.Origin(), closed.Origin())
	}
}
