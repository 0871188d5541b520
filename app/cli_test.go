package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// runCLI runs toksweep in-process with args (without the program name) and
// returns the exit status and both streams.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := New(&out, &errb).RunContext(ctx, append([]string{"toksweep"}, args...))
	code = Exit(ctx, err, &errb)
	return code, out.String(), errb.String()
}

// readLevels parses DIR/levels.csv into one map per row, keyed by column.
func readLevels(t *testing.T, dir string) []map[string]string {
	t.Helper()
	return readCSVRows(t, filepath.Join(dir, "levels.csv"))
}

// readCSVRows parses a CSV file with a header into one map per row.
func readCSVRows(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s is not valid CSV: %v", path, err)
	}
	var out []map[string]string
	for _, row := range rows[1:] {
		m := map[string]string{}
		for i, h := range rows[0] {
			m[h] = row[i]
		}
		out = append(out, m)
	}
	return out
}

// num parses a numeric CSV cell, failing the test on an empty or bad cell.
func num(t *testing.T, row map[string]string, col string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(row[col], 64)
	if err != nil {
		t.Fatalf("column %s = %q: %v", col, row[col], err)
	}
	return v
}
