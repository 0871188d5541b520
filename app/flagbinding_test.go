package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestNoFlagReadByName: flags are bound into option structs (Destination,
// or an Action hook), never read back by name from a *cli.Context, where a
// renamed flag would silently read "". Any method call on a *cli.Context
// parameter that looks a flag up by name fails the test.
func TestNoFlagReadByName(t *testing.T) {
	t.Parallel()
	lookups := map[string]bool{}
	for _, m := range strings.Fields("String Int Int64 Uint Uint64 Bool Duration Float64 StringSlice IntSlice Int64Slice Float64Slice Timestamp Path Generic Value IsSet Count") {
		lookups[m] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ctxNames := map[string]bool{} // parameters of type *cli.Context, by name
		ast.Inspect(f, func(n ast.Node) bool {
			var ft *ast.FuncType
			switch n := n.(type) {
			case *ast.FuncDecl:
				ft = n.Type
			case *ast.FuncLit:
				ft = n.Type
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && lookups[sel.Sel.Name] {
					if id, ok := sel.X.(*ast.Ident); ok && ctxNames[id.Name] {
						t.Errorf("%s: %s.%s(...) reads a flag by name; bind it into the options instead",
							fset.Position(n.Pos()), id.Name, sel.Sel.Name)
					}
				}
			}
			if ft != nil {
				for _, p := range ft.Params.List {
					if star, ok := p.Type.(*ast.StarExpr); ok {
						if sel, ok := star.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" && isIdent(sel.X, "cli") {
							for _, id := range p.Names {
								ctxNames[id.Name] = true
								checked++
							}
						}
					}
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no *cli.Context parameter found: the test looks at nothing")
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// TestFlagNamesKept: every command's single-value flags keep their names
// (namedFlag), so that urfave/cli's lookups before a run compare strings
// instead of running a regexp per flag per lookup; and a kept flag is
// still the flag as built, with the same names.
func TestFlagNamesKept(t *testing.T) {
	t.Parallel()
	for _, c := range New(io.Discard, io.Discard).Commands {
		for _, f := range c.Flags {
			if s, ok := f.(cli.DocGenerationSliceFlag); ok && s.IsSliceFlag() {
				continue
			}
			n, ok := f.(*namedFlag)
			if !ok {
				t.Errorf("%s --%s (%T): names not kept", c.Name, f.Names()[0], f)
				continue
			}
			if got, want := n.Names(), n.plainFlag.Names(); !slices.Equal(got, want) {
				t.Errorf("%s: names %q, want %q", c.Name, got, want)
			}
			if unnamed(f) != n.plainFlag || findFlag(c.Flags, f.Names()[0]) != n.plainFlag {
				t.Errorf("%s --%s: findFlag does not give the flag as built", c.Name, f.Names()[0])
			}
		}
	}
}
