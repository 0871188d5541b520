package workload

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets of the dataset readers (issue 25): any file gives
// prompts (or conversations) within the readers' bounds, or an error;
// never a panic. The seeds are ../testdata/datasets and run in every plain
// go test.

func seedDatasets(f *testing.F, names ...string) {
	f.Helper()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "datasets", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

var jsonlSeeds = []string{"requests.jsonl", "malformed-json.jsonl", "malformed-max-tokens.jsonl", "malformed-no-content.jsonl", "malformed-no-prompt.jsonl"}
var shareGPTSeeds = []string{"sharegpt.json", "sharegpt-malformed.json", "sharegpt-truncated.json"}

// FuzzReadJSONL fuzzes a JSONL dataset.
func FuzzReadJSONL(f *testing.F) {
	seedDatasets(f, jsonlSeeds...)
	f.Add([]byte(`{"messages":[{"role":"user","content":"x"}],"max_tokens":1e400}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, err := ReadJSONL(bytes.NewReader(b), "fuzz.jsonl")
		if err != nil {
			return
		}
		for _, p := range ps {
			if p.MaxTokens < 0 || p.MaxTokens > MaxOutputTokens {
				t.Fatalf("prompt %d has max_tokens %d", p.ID, p.MaxTokens)
			}
		}
	})
}

// FuzzReadShareGPT fuzzes a ShareGPT dataset, read as single prompts.
func FuzzReadShareGPT(f *testing.F) {
	seedDatasets(f, shareGPTSeeds...)
	f.Fuzz(func(t *testing.T, b []byte) {
		ps, skipped, err := ReadShareGPT(bytes.NewReader(b), "fuzz.json")
		if err == nil && skipped < 0 {
			t.Fatalf("%d prompts, %d skipped", len(ps), skipped)
		}
	})
}

// FuzzReadConversations fuzzes the multi-turn readers, JSONL and ShareGPT.
func FuzzReadConversations(f *testing.F) {
	seedDatasets(f, append(append([]string{}, jsonlSeeds...), shareGPTSeeds...)...)
	f.Add([]byte(`{"turns":[{"content":"a"},{"content":"b","max_tokens":3}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if convs, err := ReadJSONLConversations(bytes.NewReader(b), "fuzz.jsonl"); err == nil {
			for _, c := range convs {
				if len(c.Users) == 0 {
					t.Fatalf("conversation %d has no turn", c.ID)
				}
			}
		}
		_, _, _ = ReadShareGPTConversations(bytes.NewReader(b), "fuzz.json")
	})
}
