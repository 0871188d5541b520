package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// clientSSEDir holds the fixtures only this package's tests use.
const clientSSEDir = "testdata/sse"

// tokenEvent is a chat chunk with content s, and usageEvent a chunk with
// no choices and the given usage object.
func tokenEvent(s string) string {
	return fmt.Sprintf(`data: {"choices":[{"delta":{"content":%q}}]}`, s) + "\n\n"
}

func usageEvent(usage string) string {
	return `data: {"choices":[],"usage":` + usage + "}\n\n"
}

const finishEvent = `data: {"choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n\n"

// TestUsageRule checks how usage objects settle into the Record (see the
// package doc): prompt_tokens from any usage; completion_tokens 0 or
// missing does not count after token chunks, so output falls back to K.
func TestUsageRule(t *testing.T) {
	t.Parallel()
	fixture := string(readFile(t, clientSSEDir, "zero-completion-usage.sse"))
	tests := []struct {
		name                       string
		stream                     string
		hasUsage                   bool
		prompt, completion, reason int
		output                     int
	}{
		{"fixture: completion 0 after 3 chunks", fixture, false, 4, 0, 0, 3},
		{"completion missing", tokenEvent("a") + tokenEvent("b") + finishEvent +
			usageEvent(`{"prompt_tokens":7}`), false, 7, 0, 0, 2},
		{"completion 0 with reasoning", tokenEvent("a") + finishEvent +
			usageEvent(`{"prompt_tokens":7,"completion_tokens":0,"completion_tokens_details":{"reasoning_tokens":2}}`),
			false, 7, 0, 0, 1},
		{"completion 0, no token chunk", finishEvent +
			usageEvent(`{"prompt_tokens":7,"completion_tokens":0}`), true, 7, 0, 0, 0},
		{"usage counts", tokenEvent("a") + tokenEvent("b") + finishEvent +
			usageEvent(`{"prompt_tokens":4,"completion_tokens":3}`), true, 4, 3, 0, 3},
		{"continuous usage from 0", usageEvent(`{"prompt_tokens":5,"completion_tokens":0}`) +
			tokenEvent("a") + usageEvent(`{"prompt_tokens":5,"completion_tokens":1}`) +
			tokenEvent("b") + usageEvent(`{"prompt_tokens":5,"completion_tokens":2}`) + finishEvent, true, 5, 2, 0, 2},
		{"a later completion 0 does not undo a count", tokenEvent("a") +
			usageEvent(`{"prompt_tokens":5,"completion_tokens":4}`) + finishEvent +
			usageEvent(`{"prompt_tokens":6,"completion_tokens":0}`), true, 6, 4, 0, 4},
		{"all-zero usage ignored", tokenEvent("a") + usageEvent(`{"prompt_tokens":0,"completion_tokens":0}`) +
			tokenEvent("b") + finishEvent, false, 0, 0, 0, 2},
		{"cut before the usage", tokenEvent("a") + usageEvent(`{"prompt_tokens":5,"completion_tokens":0}`) +
			tokenEvent("b"), false, 5, 0, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stream := tt.stream
			if !strings.Contains(stream, "[DONE]") && strings.Contains(stream, "finish_reason") {
				stream += "data: [DONE]\n\n"
			}
			srv := newServer(t, replay(splitEvents([]byte(stream)), pace{}, nil))
			c := newClient(t, srv.URL, Config{})
			rec := c.Do(context.Background(), Prompt{Text: "hi"})
			got := fmt.Sprint(rec.HasUsage, rec.PromptTokens, rec.CompletionTokens, rec.ReasoningTokens, rec.OutputTokens())
			want := fmt.Sprint(tt.hasUsage, tt.prompt, tt.completion, tt.reason, tt.output)
			if got != want {
				t.Errorf("has_usage prompt completion reasoning output: %s, want %s (%s %s)", got, want, rec.ErrorClass, rec.Error)
			}
		})
	}
}
