package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/client"
)

func datasetPath(name string) string { return filepath.Join("..", "testdata", "datasets", name) }

func readJSONLFile(t *testing.T, name string) ([]client.Prompt, error) {
	t.Helper()
	f, err := os.Open(datasetPath(name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ReadJSONL(f, name)
}

func TestReadJSONL(t *testing.T) {
	ps, err := readJSONLFile(t, "requests.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []client.Prompt{
		{ID: 0, Text: "Write a haiku about load testing.", MaxTokens: 32},
		{ID: 2, Messages: []client.Message{{Role: "system", Content: "You are terse."}, {Role: "user", Content: "Name three prime numbers."}}},
		{ID: 3, Text: "Explain continuous batching in one paragraph."},
		{ID: 4, Messages: []client.Message{{Role: "user", Content: "Summarise this:\nKV caches grow with context."}}, MaxTokens: 64},
	}
	if len(ps) != len(want) {
		t.Fatalf("got %d prompts, want %d: %+v", len(ps), len(want), ps)
	}
	for i := range want {
		if ps[i].ID != want[i].ID || ps[i].Text != want[i].Text || ps[i].MaxTokens != want[i].MaxTokens || !slices.Equal(ps[i].Messages, want[i].Messages) {
			t.Errorf("prompt %d = %+v, want %+v", i, ps[i], want[i])
		}
	}
}

func TestReadJSONLMalformed(t *testing.T) {
	tests := []struct{ file, want string }{
		{"malformed-json.jsonl", "malformed-json.jsonl:3: invalid JSON: unexpected end of JSON input"},
		{"malformed-max-tokens.jsonl", `malformed-max-tokens.jsonl:2: "max_tokens" must be a positive integer, got 0`},
		{"malformed-no-prompt.jsonl", `malformed-no-prompt.jsonl:3: want "prompt" or "messages"`},
		{"malformed-no-content.jsonl", `malformed-no-content.jsonl:1: message 0: no "content"`},
	}
	for _, tt := range tests {
		_, err := readJSONLFile(t, tt.file)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: err = %v, want %q", tt.file, err, tt.want)
		}
	}
}

func TestReadJSONLLineErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`["not", "an", "object"]`, "x:1: want a JSON object"},
		{`{"prompt": "a", "messages": []}`, `x:1: "prompt" and "messages" are exclusive`},
		{`{"prompt": ["a", "b"]}`, `x:1: "prompt" must be a string`},
		{`{"prompt": "  "}`, `x:1: "prompt" is empty`},
		{`{"messages": []}`, `x:1: "messages" is empty`},
		{`{"messages": "hi"}`, `x:1: "messages" must be an array`},
		{`{"messages": [{"content": "hi"}]}`, `x:1: message 0 has no "role"`},
		{`{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, `x:1: message 0: content part of type "image_url"`},
		{`{"prompt": "a", "max_tokens": 1.5}`, `x:1: "max_tokens" must be a positive integer, got 1.5`},
		{`{"prompt": "a", "max_tokens": "8"}`, `x:1: "max_tokens" must be a positive integer, got "8"`},
		{"{\"prompt\": \"ok\"}\r\n\r\n{\"prompt\": 1}\r\n", `x:3: "prompt" must be a string`},
		{`{"turns": ["hi", "and then?"]}`, `x:1: a line of "turns" is a conversation: replay it with --multi-turn`},
	}
	for _, tt := range tests {
		_, err := ReadJSONL(strings.NewReader(tt.in), "x")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want prefix %q", tt.in, err, tt.want)
		}
	}
}

func TestReadJSONLNoTrailingNewlineAndBOM(t *testing.T) {
	ps, err := ReadJSONL(strings.NewReader("\xef\xbb\xbf{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}"), "x")
	if err != nil || len(ps) != 2 || ps[1].Text != "b" || ps[1].ID != 1 {
		t.Fatalf("prompts %+v, err %v", ps, err)
	}
}

func TestReadShareGPT(t *testing.T) {
	f, err := os.Open(datasetPath("sharegpt.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps, skipped, err := ReadShareGPT(f, "sharegpt.json")
	if err != nil {
		t.Fatal(err)
	}
	answer0 := "A token is a piece of text, often part of a word, that a language model reads and writes one at a time."
	want := []client.Prompt{
		{ID: 0, Text: "What is a token?", MaxTokens: EstimateTokens(answer0)}, // 23 words: 30 tokens
		{ID: 1, Text: "Why does batching raise throughput?", MaxTokens: 10},   // 7 words
		{ID: 3, Text: "Tell me about prefix caching.", MaxTokens: 17},         // 13 words
	}
	if skipped != 1 || len(ps) != len(want) {
		t.Fatalf("got %d prompts, %d skipped: %+v", len(ps), skipped, ps)
	}
	for i := range want {
		if ps[i].ID != want[i].ID || ps[i].Text != want[i].Text || ps[i].MaxTokens != want[i].MaxTokens {
			t.Errorf("prompt %d = %+v, want %+v", i, ps[i], want[i])
		}
	}
	if want[0].MaxTokens != 30 {
		t.Errorf("estimate of the first answer = %d, want 30", want[0].MaxTokens)
	}
}

func TestReadShareGPTMalformed(t *testing.T) {
	tests := []struct{ file, want string }{
		{"sharegpt-malformed.json", "sharegpt-malformed.json:3: conversation 1: cannot unmarshal number"},
		{"sharegpt-truncated.json", "sharegpt-truncated.json:3: conversation 1:"},
	}
	for _, tt := range tests {
		f, err := os.Open(datasetPath(tt.file))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = ReadShareGPT(f, tt.file)
		f.Close()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want prefix %q", tt.file, err, tt.want)
		}
	}
	for in, want := range map[string]string{
		`{"conversations": []}`:        "x:1: want a JSON array of conversations",
		"[\n{\"conversations\": []}\n": "x:2: the array of conversations is not closed",
		"":                             "x:1: want a JSON array",
	} {
		if _, _, err := ReadShareGPT(strings.NewReader(in), "x"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", in, err, want)
		}
	}
}
