package promscrape

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that any exposition parses or fails, never panics, and
// that what parses reads (Read) into a snapshot (issue 25). The seeds are the captured
// expositions in testdata and run in every plain go test.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"vllm-v1.txt", "llmd-v0.10.2.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("# TYPE x histogram\nx_bucket{le=\"+Inf\"} NaN\nx_sum 1e400\nx_count -1\n"))
	f.Add([]byte("vllm:num_requests_running{a=\"\\\"\"} 3 1700000000000\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse(bytes.NewReader(b))
		if err != nil {
			return
		}
		_ = Read(e)
	})
}
