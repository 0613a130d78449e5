// Package drivertest holds stand-ins for the analyzer suite, so that the
// drivers (the in-process runner, the output formats, the CLI) are tested
// on findings of a known shape whatever the real checks find.
package drivertest

import (
	"errors"
	"go/ast"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/analysis"
)

// BadCall reports each call to a function named Bad, with Bad's
// declaration (often in another package) as the second place involved and
// a fix that calls Good instead.
var BadCall = &analysis.Analyzer{
	Name: "badcall",
	Doc:  "calls to Bad\n\nBad is never right; call Good.",
	URL:  "https://example.com/badcall",
	Run: func(pass *analysis.Pass) (any, error) {
		for _, file := range pass.Files {
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var id *ast.Ident
				switch fn := call.Fun.(type) {
				case *ast.Ident:
					id = fn
				case *ast.SelectorExpr:
					id = fn.Sel
				}
				if id == nil || id.Name != "Bad" {
					return true
				}
				pass.Report(analysis.Diagnostic{
					Pos:     call.Pos(),
					End:     call.End(),
					Message: "call to Bad (badcall)",
					Related: []analysis.RelatedInformation{{Pos: pass.TypesInfo.Uses[id].Pos(), Message: "Bad is declared here"}},
					SuggestedFixes: []analysis.SuggestedFix{{
						Message:   "call Good",
						TextEdits: []analysis.TextEdit{{Pos: id.Pos(), End: id.End(), NewText: []byte("Good")}},
					}},
				})
				return true
			})
		}
		return nil, nil
	},
}

// Failing fails on every package, as an analyzer with a bug would.
var Failing = &analysis.Analyzer{
	Name: "failing",
	Doc:  "fails",
	Run:  func(*analysis.Pass) (any, error) { return nil, errors.New("it broke") },
}

// Module is a small module for BadCall: a finding in package a, a
// package that does not type-check, one that imports it, and a directory
// without Go files. It has no tests, which would load package testing and
// its dependencies from source; add them where tests are the point.
var Module = map[string]string{
	"go.mod":          "module example.com/m\n\ngo 1.26\n",
	"lib/lib.go":      "package lib\n\nfunc Bad() int { return 0 }\n\nfunc Good() int { return 1 }\n",
	"a/a.go":          "package a\n\nimport \"example.com/m/lib\"\n\nfunc A() int { return lib.Bad() }\n",
	"broken/b.go":     "package broken\n\nfunc B() int { return undefined }\n",
	"user/u.go":       "package user\n\nimport \"example.com/m/broken\"\n\nvar _ = broken.B()\n",
	"empty/README.md": "nothing here\n",
}

// WriteTree writes files (slash-separated path -> content) under a new
// temporary directory and returns it.
func WriteTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// IsMarked is the fact Marked exports for a function whose doc comment
// says "//marked".
type IsMarked struct{}

// AFact makes IsMarked an analysis fact.
func (*IsMarked) AFact() {}

// Marked returns an analyzer that reports each call to a function marked
// in another package, which it knows only through the fact that package
// exported: a stand-in for the checks' facts (directives, effect
// summaries), to test that the driver gives every package of user code
// its syntax and carries its facts. saw, if not nil, is called with the
// path of every package it runs on, from several goroutines.
func Marked(saw func(path string)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:      "marked",
		Doc:       "calls to functions marked //marked in another package",
		FactTypes: []analysis.Fact{new(IsMarked)},
		Run: func(pass *analysis.Pass) (any, error) {
			if saw != nil {
				saw(pass.Pkg.Path())
			}
			for _, file := range pass.Files {
				for _, decl := range file.Decls {
					if fn, ok := decl.(*ast.FuncDecl); ok && fn.Doc != nil && fn.Doc.Text() == "marked\n" {
						pass.ExportObjectFact(pass.TypesInfo.Defs[fn.Name], new(IsMarked))
					}
				}
				ast.Inspect(file, func(n ast.Node) bool {
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if obj := pass.TypesInfo.Uses[sel.Sel]; obj != nil && pass.ImportObjectFact(obj, new(IsMarked)) {
							pass.Reportf(sel.Pos(), "call to marked %s (marked)", obj.Name())
						}
					}
					return true
				})
			}
			return nil, nil
		},
	}
}
