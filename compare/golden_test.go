package compare

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenTable compares three synthetic runs: B is drawn 10% faster than A
// and shares only some of its levels; C is drawn like A. A and C ran C=2
// three times, so that level gets intervals between runs.
func goldenTable(t *testing.T) Table {
	t.Helper()
	a := base.run("runs/a", 11, 8, 1, 2, 4)
	c := base.run("runs/c", 13, 8, 1, 2)
	for i := range uint64(2) {
		a, c = base.repeat(a, 21+i, 2, 8), base.repeat(c, 31+i, 2, 8)
	}
	runs := []Run{a, base.scaled(1.10).run("runs/b", 12, 8, 2, 4, 8), c}
	tab, err := Compare(runs, Options{Seed: 1, MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestGolden(t *testing.T) {
	tab := goldenTable(t)
	tests := []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"compare.csv", func(b *bytes.Buffer) error { return tab.WriteCSV(b) }},
		{"compare.txt", func(b *bytes.Buffer) error { return tab.WriteText(b) }},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", tt.file)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./compare -update to create it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the golden file:\n got:\n%s\nwant:\n%s", tt.file, b.Bytes(), want)
			}
		})
	}
}
