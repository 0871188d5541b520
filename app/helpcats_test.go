package app

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every sweep flag has a category (categorize panics on one without),
// the README's flags table names the categories in --help's order, and
// each flag the README's row names is in that row's category.
func TestEveryFlagHasItsREADMECategory(t *testing.T) {
	t.Parallel()
	cat := map[string]string{}
	for _, f := range sweepFlags(&options{}) {
		c := f.(cli.CategorizableFlag).GetCategory()
		if c == "" {
			t.Errorf("--%s has no category", f.Names()[0])
		}
		cat[f.Names()[0]] = c
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([^|]+) \| (.*) \|$`)
	paren := regexp.MustCompile(`\([^()]*\)`)
	flag := regexp.MustCompile("`--([a-z0-9-]+)")
	var rows []string
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		name, cell := m[1], m[2]
		if !slices.Contains(categoryOrder, name) {
			continue
		}
		rows = append(rows, name)
		for strings.Contains(cell, "(") && paren.MatchString(cell) {
			cell = paren.ReplaceAllString(cell, "") // what the brackets say is about the flag before them
		}
		for _, f := range flag.FindAllStringSubmatch(cell, -1) {
			if c, ok := cat[f[1]]; ok && c != name {
				t.Errorf("README lists --%s under %q; --help under %q", f[1], name, c)
			}
		}
	}
	if !slices.Equal(rows, categoryOrder) {
		t.Errorf("README's rows %q, --help's categories %q", rows, categoryOrder)
	}
}

// sweep --help lists the categories in their order, each once, and every
// flag once.
func TestSweepHelpByCategory(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, context.Background(), "sweep", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	last := -1
	for _, c := range categoryOrder {
		i := strings.Index(stdout, "\n   "+c+"\n\n")
		if i < 0 || i < last || strings.Count(stdout, "\n   "+c+"\n\n") != 1 {
			t.Errorf("category %q at %d (the last at %d)", c, i, last)
		}
		last = i
	}
	for _, f := range sweepFlags(&options{}) {
		if n := strings.Count(stdout, "\n   --"+f.Names()[0]+" "); n != 1 {
			t.Errorf("--%s is %d times in --help", f.Names()[0], n)
		}
	}
	if !strings.Contains(stdout, "--help, -h") {
		t.Error("--help is not in --help")
	}
}
