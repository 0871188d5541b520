package app

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runCLI runs toksweep in-process with args (without the program name) and
// returns the exit status and both streams. A command that writes charts
// writes them as SVG only (testArgs): PNG under -race costs seconds a run.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := New(&out, &errb).RunContext(ctx, append([]string{"toksweep"}, testArgs(args)...))
	code = Exit(ctx, err, &errb)
	return code, out.String(), errb.String()
}

// testArgs is args with "--charts svg" after the command's name when the
// command writes chart files and args do not choose their formats: only
// the tests about PNG render it (TestReportRendersPNG and the compare
// test), by passing --charts themselves.
func testArgs(args []string) []string {
	if len(args) == 0 || !slices.Contains([]string{"sweep", "report", "compare", "merge"}, args[0]) ||
		slices.ContainsFunc(args, func(a string) bool { return a == "--charts" || strings.HasPrefix(a, "--charts=") }) {
		return args
	}
	return slices.Concat(args[:1], []string{"--charts", "svg"}, args[1:])
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
