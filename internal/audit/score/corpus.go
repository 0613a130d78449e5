// Package score measures the audit against a corpus of marked scenario
// functions (testdata/corpus, README there): which bugs it finds, which it
// misses, and what it reports that is not a bug. Precision and recall per
// check are the numbers the checks are tuned to, so they are computed here
// once, exactly as the corpus README defines them, for make audit-score and
// for the test that holds the corpus to its floor.
package score

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kind says whether a scenario holds a check's bug or a correct look-alike.
type Kind int

const (
	// Bug marks a function that holds one instance of the check's bug.
	Bug Kind = iota + 1
	// OK marks a correct look-alike the check must stay silent on.
	OK
)

// String is the word a mark uses for k: "bug" or "ok".
func (k Kind) String() string {
	if k == Bug {
		return "bug"
	}
	return "ok"
}

// Scenario is one marked top-level function or method.
type Scenario struct {
	// Name is the function's name, "Type.Method" for a method.
	Name string
	// File is the absolute path of its file; Line the line of its func
	// keyword, where -v points an engineer.
	File string
	Line int
	// Start and End are the byte offsets of the declaration (doc comment
	// excluded) in File: a finding inside them belongs to the scenario.
	Start, End int
	// Marks say, per check, whether the function is a bug or a look-alike.
	Marks map[string]Kind
}

// Pos is the scenario's place as "file:line" with the file relative to dir.
func (s *Scenario) Pos(dir string) string {
	return fmt.Sprintf("%s:%d", rel(s.File, dir), s.Line)
}

// Corpus is the set of scenarios of one module directory.
type Corpus struct {
	// Dir is the absolute directory the corpus was read from.
	Dir string
	// Checks are the check names a mark may use, in the order reports list them.
	Checks []string
	// Scenarios are sorted by file and position.
	Scenarios []*Scenario
}

// MarkError is a corpus: line that cannot be read, or one in a place where
// it marks nothing. Fix says what to write instead.
type MarkError struct {
	Pos     token.Position
	Problem string
	Fix     string
}

// Error reads "file:line: problem; fix", for an editor to jump to.
func (e *MarkError) Error() string {
	return fmt.Sprintf("%s:%d: %s; %s", e.Pos.Filename, e.Pos.Line, e.Problem, e.Fix)
}

// markPrefix opens a mark line inside a comment.
const markPrefix = "corpus:"

// Parse reads the scenarios of the module in dir: every .go file below it,
// except in directories the go command ignores (testdata, vendor, names
// starting with "." or "_"). checks are the names a mark may use. Every
// bad mark is reported, each as a *MarkError, joined in one error.
func Parse(dir string, checks []string) (*Corpus, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus directory %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	c := &Corpus{Dir: abs, Checks: checks}
	var problems []error
	fset := token.NewFileSet()
	err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != abs && (name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse corpus file: %w", err)
		}
		scenarios, errs := fileScenarios(fset, f, checks)
		c.Scenarios = append(c.Scenarios, scenarios...)
		problems = append(problems, errs...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read corpus %s: %w", dir, err)
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	slices.SortFunc(c.Scenarios, func(a, b *Scenario) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Start, b.Start))
	})
	return c, nil
}

// fileScenarios reads the marked functions of one file, and reports every
// mark that is malformed, names an unknown check, repeats a check, or sits
// anywhere but in a top-level function's doc comment (where it would
// silently mark nothing).
func fileScenarios(fset *token.FileSet, f *ast.File, checks []string) ([]*Scenario, []error) {
	var scenarios []*Scenario
	var errs []error
	docs := make(map[*ast.CommentGroup]bool)
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Doc == nil {
			continue
		}
		docs[fn.Doc] = true
		s := &Scenario{
			Name:  funcName(fn),
			File:  fset.File(fn.Pos()).Name(),
			Line:  fset.Position(fn.Pos()).Line,
			Start: fset.Position(fn.Pos()).Offset,
			End:   fset.Position(fn.End()).Offset,
			Marks: make(map[string]Kind),
		}
		for _, cm := range fn.Doc.List {
			text, ok := markText(cm.Text)
			if !ok {
				continue
			}
			pos := fset.Position(cm.Pos())
			check, kind, err := parseMark(pos, text, checks)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if _, dup := s.Marks[check]; dup {
				errs = append(errs, &MarkError{Pos: pos, Problem: fmt.Sprintf("%s is marked twice for %s", s.Name, check),
					Fix: "keep one corpus: line per check"})
				continue
			}
			s.Marks[check] = kind
		}
		if len(s.Marks) > 0 {
			scenarios = append(scenarios, s)
		}
	}
	for _, cg := range f.Comments {
		if docs[cg] {
			continue
		}
		for _, cm := range cg.List {
			if _, ok := markText(cm.Text); ok {
				errs = append(errs, &MarkError{Pos: fset.Position(cm.Pos()), Problem: "a corpus: line outside a top-level function's doc comment marks nothing",
					Fix: "move it into the doc comment of the function or method it marks"})
			}
		}
	}
	return scenarios, errs
}

// markText returns what follows "corpus:" when the comment is a mark.
func markText(comment string) (string, bool) {
	text := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(comment, "//"), "/*"))
	return strings.CutPrefix(text, markPrefix)
}

// parseMark reads "bug CHECK" or "ok CHECK".
func parseMark(pos token.Position, text string, checks []string) (string, Kind, error) {
	const form = `write "// corpus: bug CHECK" or "// corpus: ok CHECK"`
	words := strings.Fields(text)
	if len(words) != 2 {
		return "", 0, &MarkError{Pos: pos, Problem: fmt.Sprintf("malformed corpus: line %q", strings.TrimSpace(text)), Fix: form + " with nothing after CHECK"}
	}
	var kind Kind
	switch words[0] {
	case "bug":
		kind = Bug
	case "ok":
		kind = OK
	default:
		return "", 0, &MarkError{Pos: pos, Problem: fmt.Sprintf("corpus: kind %q is neither bug nor ok", words[0]), Fix: form}
	}
	if !slices.Contains(checks, words[1]) {
		return "", 0, &MarkError{Pos: pos, Problem: fmt.Sprintf("unknown check %q", words[1]), Fix: "use one of " + strings.Join(checks, ", ")}
	}
	return words[1], kind, nil
}

// funcName is "F" for a function and "T.M" for a method (pointer or not,
// type parameters dropped).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fn.Name.Name
		}
		return fn.Name.Name
	}
}

// rel shows file relative to dir when it lies inside it.
func rel(file, dir string) string {
	if r, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(r) {
		return r
	}
	return file
}
