package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
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
