package client

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the fuzz seed corpora in testdata/fuzz")

// TestFuzzCorpus checks that the seed corpora in testdata/fuzz are the ones
// seedCorpus builds from the SSE files of ../testdata; -update rewrites them.
func TestFuzzCorpus(t *testing.T) {
	want := seedCorpus(t)
	if *update {
		if err := os.RemoveAll(filepath.Join("testdata", "fuzz")); err != nil {
			t.Fatal(err)
		}
		for path, b := range want {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want[path]) {
			t.Errorf("%s is missing or stale (%v): run go test -run TestFuzzCorpus -update ./client", path, err)
		}
	}
}

// seedCorpus maps corpus file paths to their contents: for FuzzStream each
// SSE file, with LF and with CRLF line ends; for FuzzParseEvent each data
// event of a distinct shape (its punctuation, once letters and digits are
// dropped).
func seedCorpus(t *testing.T) map[string][]byte {
	files := map[string]string{}
	for prefix, dir := range map[string]string{"transcript-": transcriptsDir, "fixture-": sseDir} {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.sse"))
		for _, p := range paths {
			files[prefix+strings.TrimSuffix(filepath.Base(p), ".sse")] = p
		}
	}
	corpus := map[string][]byte{}
	add := func(fuzz, name string, b []byte) {
		corpus[filepath.Join("testdata", "fuzz", fuzz, name)] = fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", b)
	}
	for name, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		add("FuzzStream", name, b)
		add("FuzzStream", name+"-crlf", bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")))
		seen := map[string]bool{}
		for i, line := range bytes.Split(b, []byte("\n")) {
			d, ok := bytes.CutPrefix(line, []byte("data:"))
			d = bytes.TrimPrefix(d, []byte(" "))
			shape := string(bytes.Map(func(r rune) rune {
				if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
					return -1
				}
				return r
			}, d))
			if ok && string(d) != "[DONE]" && !seen[shape] {
				seen[shape] = true
				add("FuzzParseEvent", fmt.Sprintf("%s-%d", name, i), d)
			}
		}
	}
	return corpus
}
