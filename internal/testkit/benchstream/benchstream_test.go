package benchstream

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

func TestBuild(t *testing.T) {
	s := Load(t, filepath.Join("..", "..", ".."))
	var data [][]byte
	for _, line := range bytes.Split(s, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			data = append(data, d)
		}
	}
	// role, Chunks contents, finish, usage, [DONE]
	if len(data) != Chunks+4 || string(data[len(data)-1]) != "[DONE]" {
		t.Fatalf("%d data lines, last %q; want %d ending in [DONE]", len(data), data[len(data)-1], Chunks+4)
	}
	texts := map[string]bool{}
	for i, d := range data[:len(data)-1] {
		var c struct {
			Choices []struct {
				Delta struct{ Content string } `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(d, &c); err != nil {
			t.Fatalf("event %d is not JSON: %v: %s", i, err, d)
		}
		if i >= 1 && i <= Chunks {
			texts[c.Choices[0].Delta.Content] = true
		}
	}
	if len(texts) != 10 {
		t.Errorf("content chunks cycle through %d texts, want 10", len(texts))
	}
}
