// Package driver runs idemkit's analyzers in-process, the way
// `idemkit audit` does, and turns what they find into text, go vet -json,
// SARIF, or files with the suggested fixes applied.
//
// It loads packages with go/packages and analyses them with the public
// x/tools checker, so the analyzers see exactly what they see under go vet
// (unitchecker): the same facts, the same types. What the checker leaves to
// its callers lives here: choosing the packages worth analysing, naming
// the ones that could not be, and every output format. The driver never
// writes files itself; the command layer does, with what PlanFixes returns.
package driver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// ErrNoPackages is returned when the patterns match no Go package at all,
// for example an empty directory or a ./... over a module without code.
var ErrNoPackages = errors.New("no Go packages")

// Options say what to analyse and with what.
type Options struct {
	// Dir is the working directory: patterns are resolved against it and
	// positions in errors are shown relative to it.
	Dir string
	// Patterns are go list patterns; empty means "./...".
	Patterns []string
	// Analyzers is the suite to run.
	Analyzers []*analysis.Analyzer
	// Env is the environment of the go command; nil means the process's.
	Env []string
	// Progress, if set, is called as the run moves on, from several
	// goroutines but never concurrently, for a display that shows it.
	Progress func(Progress)
	// Cache, if set with Build, keeps results: a run whose inputs are all
	// unchanged returns the stored result instead of analysing again.
	Cache Cache
	// Build identifies the build of the analyzers (a hash of the
	// executable), the one input a cache key cannot read from the code.
	// Without it nothing is cached.
	Build string
}

// Stage is a step of a run.
type Stage int

const (
	// Listing asks go list for the package graph.
	Listing Stage = iota
	// Loading parses and type-checks the user code (Done of Total
	// packages), after go list has compiled the dependencies' export data.
	Loading
	// Analysing runs the suite (Done of Total packages).
	Analysing
)

// Progress is how far a run has come.
type Progress struct {
	Stage       Stage
	Done, Total int
}

// Result is what one run found.
type Result struct {
	// Findings are the diagnostics of the analysed packages, sorted by
	// position and free of the duplicates that test variants produce.
	Findings []Finding
	// Errors name the packages that could not be analysed (or not fully),
	// and why. Any of them makes the run a failure, not merely unclean.
	Errors []*PackageError
	// Packages counts the packages that were analysed.
	Packages int
	// Analyzers are the names of the suite, which every package that
	// could not be analysed is reported for in JSON.
	Analyzers []string
	// Cached says the result was read from Options.Cache.
	Cached bool

	// fileSizes records the size each file had when it was analysed, so
	// that PlanFixes refuses to edit a file that has changed since.
	fileSizes map[string]int
}

// Finding is one diagnostic, detached from the FileSet it was reported
// against so that every writer (and a test) can work from plain values.
type Finding struct {
	Analyzer string
	// Package is the ID of the package it was found in, the key of
	// go vet -json output, e.g. "example.com/m/h [example.com/m/h.test]".
	Package  string
	Category string
	Pos, End token.Position // absolute file names; End may be invalid
	Message  string
	URL      string
	Related  []Related
	Fixes    []Fix
}

// Related is a second place a finding involves: the check before the act,
// the claim a return leaks.
type Related struct {
	Pos, End token.Position
	Message  string
}

// Fix is one suggested fix: edits applied together or not at all.
type Fix struct {
	Message string
	Edits   []Edit
}

// Edit replaces the bytes [Start, End) of Filename with New.
type Edit struct {
	Filename   string
	Start, End int
	New        string
}

// PackageError says why a package was not analysed, or why an analyzer
// failed on it.
type PackageError struct {
	// Package is the import path, or the pattern when the pattern itself
	// is at fault (a directory without Go files, a malformed path).
	Package string
	// Analyzer is set when the package loaded but an analyzer failed.
	Analyzer string
	// Problems are the errors, file positions relative to Options.Dir.
	Problems []string
	// Dependency names the ill-typed package this one imports, when that
	// is why it is not analysed; Problems then holds go's reason when the
	// dependency could not be loaded at all, and is otherwise empty.
	Dependency string
	// Tests marks a package whose own files were audited and whose test
	// files were not: the package with its tests does not type-check.
	Tests bool
}

// maxProblems bounds the errors listed per package: the first few say
// what is wrong, and a hundred follow-on errors say nothing more.
const maxProblems = 10

func (e *PackageError) Error() string {
	var b strings.Builder
	switch {
	case e.Analyzer != "":
		fmt.Fprintf(&b, "%s: analyzer %s failed", e.Package, e.Analyzer)
	case e.Tests && e.Dependency != "":
		fmt.Fprintf(&b, "%s: tests not audited: they import %s, which does not type-check; the package itself was", e.Package, e.Dependency)
	case e.Tests:
		fmt.Fprintf(&b, "%s: tests not audited: they do not type-check; the package itself was", e.Package)
	case e.Dependency != "":
		fmt.Fprintf(&b, "%s: not audited: it imports %s, which does not type-check", e.Package, e.Dependency)
	case len(e.Problems) == 1 && !strings.Contains(e.Problems[0], ".go:"):
		// A pattern error ("no Go files in ...") reads best on one line.
		return fmt.Sprintf("%s: %s", e.Package, e.Problems[0])
	default:
		fmt.Fprintf(&b, "%s: not audited: it does not type-check", e.Package)
	}
	for i, p := range e.Problems {
		if i == maxProblems {
			fmt.Fprintf(&b, "\n\t(and %d more)", len(e.Problems)-maxProblems)
			break
		}
		b.WriteString("\n\t")
		b.WriteString(p)
	}
	return b.String()
}

// Run loads the packages that opts.Patterns match, with their tests, the
// way go vet does, and runs the suite over the ones that type-check.
// Packages that do not are reported in Result.Errors and the others are
// still analysed. The error is for failures of the run as a whole: go list
// itself failing, or ErrNoPackages.
//
// Only user code is loaded from source: the packages matched and the
// packages they import from the main module (or workspace) or from a
// module replaced by a directory, where //idemkit: directives and effect
// summaries live. Every other dependency,
// the standard library and third-party modules, is type-checked from the
// compiler's export data, which holds its types without its syntax, and
// contributes no facts: the checks know libraries by import path and type.
// That keeps a module that imports large libraries to the memory its own
// code needs (issue 9, item 7).
func Run(ctx context.Context, opts Options) (*Result, error) {
	patterns := opts.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(Progress) {}
	}
	progress(Progress{Stage: Listing})

	// First, the package graph alone: which packages are asked for, and
	// which user code they import. With a cache, go list also names each
	// package's export data, which the key needs, and so compiles what the
	// load below would compile anyway; without, it compiles nothing.
	caching := opts.Cache != nil && opts.Build != ""
	mode := packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule | packages.NeedEmbedFiles
	if caching {
		mode |= packages.NeedExportFile
	}
	listed, err := packages.Load(&packages.Config{Context: ctx, Mode: mode, Dir: opts.Dir, Env: opts.Env, Tests: true}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", strings.Join(patterns, " "), err)
	}
	if len(listed) == 0 {
		return nil, fmt.Errorf("%w match %s", ErrNoPackages, strings.Join(patterns, " "))
	}
	asked, user, files := userCode(listed)
	var key string
	if caching {
		// A key that cannot be computed (a file vanished mid-run) only
		// means this run is not cached.
		if key, err = cacheKey(opts, patterns, listed, user); err == nil {
			if data, ok := opts.Cache.Get(key); ok {
				if res, err := decodeResult(data); err == nil {
					return res, nil
				}
			}
		}
	}

	// Then the user code from source, with every other package's types
	// from export data. The user packages the patterns did not match are
	// loaded as roots too, so that they have syntax for their facts; they
	// are analysed only for those.
	load := slices.Clone(patterns)
	for path := range user {
		if !asked[path] {
			load = append(load, path)
		}
	}
	slices.Sort(load[len(patterns):])
	var (
		mu     sync.Mutex
		parsed = make(map[string]int) // package path -> files parsed
		loaded int
	)
	progress(Progress{Stage: Loading, Total: len(files.count)})
	cfg := &packages.Config{
		Context: ctx,
		Mode:    packages.LoadSyntax | packages.NeedModule,
		Dir:     opts.Dir,
		Env:     opts.Env,
		Tests:   true,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			// go/packages' own mode, so that the analyzers see the syntax
			// their tests (analysistest) give them.
			f, err := parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments)
			mu.Lock()
			if path, ok := files.of[filename]; ok {
				parsed[path]++
				if parsed[path] == files.count[path] {
					loaded++
					progress(Progress{Stage: Loading, Done: loaded, Total: len(files.count)})
				}
			}
			mu.Unlock()
			return f, err
		},
	}
	pkgs, err := packages.Load(cfg, load...)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", strings.Join(patterns, " "), err)
	}

	res := &Result{fileSizes: make(map[string]int)}
	for _, a := range opts.Analyzers {
		res.Analyzers = append(res.Analyzers, a.Name)
	}
	var wanted []*packages.Package
	for _, p := range pkgs {
		if asked[p.PkgPath] || asked[p.ID] {
			wanted = append(wanted, p)
		}
	}
	roots, errs := selectRoots(wanted, opts.Dir)
	res.Errors = errs
	res.Packages = len(roots)
	if len(roots) > 0 && len(opts.Analyzers) > 0 {
		full := make(map[*packages.Package]bool, len(pkgs)) // type-checked in full from source
		for _, p := range pkgs {
			full[p] = true
		}
		if err := analyse(opts.Analyzers, roots, full, progress, res); err != nil {
			return nil, err
		}
	}
	if key != "" && ctx.Err() == nil {
		if data, err := encodeResult(res); err == nil {
			_ = opts.Cache.Put(key, data) // a failed store costs only the next run's time
		}
	}
	return res, nil
}

// analyse runs the suite over roots and adds what it finds to res.
func analyse(suite []*analysis.Analyzer, roots []*packages.Package, loaded map[*packages.Package]bool, progress func(Progress), res *Result) error {
	pruneToLoaded(roots, loaded)

	forget, err := resolveInterfaces(roots)
	if err != nil {
		return err
	}
	defer forget()

	analyzers, done := counted(suite, len(roots), func(n int) {
		progress(Progress{Stage: Analysing, Done: n, Total: len(roots)})
	})
	progress(Progress{Stage: Analysing, Total: len(roots)})
	graph, err := checker.Analyze(analyzers, roots, nil)
	if err != nil {
		return fmt.Errorf("analyse: %w", err)
	}
	done()
	type key struct {
		pos, end      token.Position
		analyzer, msg string
	}
	seen := make(map[key]bool)
	for _, act := range graph.Roots {
		if act.Err != nil {
			res.Errors = append(res.Errors, &PackageError{Package: act.Package.PkgPath, Analyzer: act.Analyzer.Name, Problems: []string{act.Err.Error()}})
			continue
		}
		fset := act.Package.Fset
		for _, d := range act.Diagnostics {
			f := newFinding(fset, act.Analyzer.Name, act.Package.ID, d)
			k := key{f.Pos, f.End, f.Analyzer, f.Message}
			if seen[k] {
				continue
			}
			seen[k] = true
			res.Findings = append(res.Findings, f)
			for _, fix := range d.SuggestedFixes {
				for _, e := range fix.TextEdits {
					tf := fset.File(e.Pos)
					res.fileSizes[tf.Name()] = tf.Size()
				}
			}
		}
	}
	slices.SortFunc(res.Findings, compareFindings)
	slices.SortFunc(res.Errors, func(a, b *PackageError) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Analyzer, b.Analyzer))
	})
	return nil
}

// fileIndex maps each Go file of the user code to its package, for the
// loading progress: a package counts as loaded when all its files are
// parsed.
type fileIndex struct {
	of    map[string]string // file -> package path
	count map[string]int    // package path -> files
}

// userCode reads the package graph go list gave: the packages the
// patterns matched (by ID and import path), the import paths of the user
// code among them and their dependencies, and the files of that code.
// User code is a package matched by the patterns, one of the main
// module's (a workspace's modules are all main), or one of a module
// replaced by a directory: the code of a repository that keeps several
// modules side by side, where directives are as likely as in the main one.
func userCode(listed []*packages.Package) (asked, user map[string]bool, files fileIndex) {
	asked = make(map[string]bool)
	user = make(map[string]bool)
	files = fileIndex{of: make(map[string]string), count: make(map[string]int)}
	for _, p := range listed {
		asked[p.ID] = true
		asked[p.PkgPath] = true
	}
	packages.Visit(listed, nil, func(p *packages.Package) {
		if !asked[p.ID] && !isUserModule(p.Module) {
			return
		}
		user[p.PkgPath] = true
		for _, f := range p.GoFiles {
			if _, ok := files.of[f]; !ok {
				files.of[f] = p.PkgPath
				files.count[p.PkgPath]++
			}
		}
	})
	return asked, user, files
}

// isUserModule says whether m is the main module (or one of a
// workspace's) or a module replaced by a local directory.
func isUserModule(m *packages.Module) bool {
	return m != nil && (m.Main || m.Replace != nil && m.Replace.Version == "")
}

// pruneToLoaded cuts every edge from the packages to analyse (and the
// user code they import) to a package outside loaded, the packages the
// load was asked for, which alone go/packages type-checks in full from
// source. Two kinds are outside it: a dependency outside user code, whose
// types come from export data, without syntax; and the copy of a user
// package go list makes for another package's external tests ("y
// [x.test]", recompiled against x's test variant), which go/packages
// type-checks without its function bodies. The checker would run the fact
// analyzers on both, on syntax they have no types for. All an edge cut to
// such a copy costs is its facts in the external test that imports it.
func pruneToLoaded(roots []*packages.Package, loaded map[*packages.Package]bool) {
	seen := make(map[*packages.Package]bool)
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		kept := make(map[string]*packages.Package, len(p.Imports))
		for path, q := range p.Imports {
			if loaded[q] {
				kept[path] = q
				visit(q)
			}
		}
		p.Imports = kept
	}
	for _, p := range roots {
		visit(p)
	}
}

// counted returns the suite with the analyzers no other one requires
// wrapped to count, per package, the runs that finished, and calls
// analysed with the number of packages whose every wrapped analyzer has
// run. The wrapped copies keep their names; only the suite's leaves are
// wrapped, since another analyzer's Requires must keep pointing at the
// original. done reports the last count, for a package that failed.
func counted(suite []*analysis.Analyzer, packages int, analysed func(int)) (wrapped []*analysis.Analyzer, done func()) {
	required := make(map[*analysis.Analyzer]bool)
	for _, a := range suite {
		for _, r := range a.Requires {
			required[r] = true
		}
	}
	var (
		mu     sync.Mutex
		runs   = make(map[*types.Package]int)
		leaves int
		n      int
	)
	for _, a := range suite {
		if required[a] {
			wrapped = append(wrapped, a)
			continue
		}
		leaves++
		c := *a
		c.Run = func(pass *analysis.Pass) (any, error) {
			defer func() {
				mu.Lock()
				defer mu.Unlock()
				runs[pass.Pkg]++
				if runs[pass.Pkg] == leaves {
					n++
					analysed(n)
				}
			}()
			return a.Run(pass)
		}
		wrapped = append(wrapped, &c)
	}
	return wrapped, func() { analysed(packages) }
}

// selectRoots picks the packages to analyse from what go list returned
// with tests: a package's test variant ("p [p.test]") stands for it, since
// it holds the same files and more, and the generated test mains are
// skipped. Packages that do not type-check become errors; so do the ones
// that only import such a package, naming it.
func selectRoots(pkgs []*packages.Package, dir string) ([]*packages.Package, []*PackageError) {
	hasVariant := make(map[string]bool) // import path -> a well-typed "p [p.test]" exists
	for _, p := range pkgs {
		if path, _, ok := strings.Cut(p.ID, " ["); ok && path == p.PkgPath && !p.IllTyped {
			hasVariant[path] = true
		}
	}
	plain := make(map[string]bool) // import path -> the package without its tests is well-typed
	for _, p := range pkgs {
		if p.ID == p.PkgPath && !p.IllTyped {
			plain[p.PkgPath] = true
		}
	}
	var roots []*packages.Package
	var errs []*PackageError
	reported := make(map[string]bool) // import paths already named in errs
	for _, p := range pkgs {
		// A test variant ("p [p.test]", or the external "p_test [p.test]")
		// that does not type-check, beside a p that does: p is audited
		// without its tests, and the error says that it is the tests.
		path, tests := p.PkgPath, false
		if _, variant, ok := strings.Cut(p.ID, " ["); ok && strings.HasSuffix(variant, ".test]") {
			if base := strings.TrimSuffix(p.PkgPath, "_test"); plain[base] {
				path, tests = base, true
			}
		}
		switch {
		case p.Name == "main" && strings.HasSuffix(p.ID, ".test") && !strings.Contains(p.ID, " "):
			continue // the generated main of a test binary
		case !p.IllTyped:
			if p.ID == p.PkgPath && hasVariant[p.PkgPath] {
				continue
			}
			roots = append(roots, p)
		case reported[path]:
		default:
			reported[path] = true
			e := loadError(p, dir)
			e.Package, e.Tests = path, tests
			errs = append(errs, e)
		}
	}
	return roots, errs
}

// loadError describes why p could not be analysed: its own errors, or
// else the first ill-typed package among its imports.
func loadError(p *packages.Package, dir string) *PackageError {
	e := &PackageError{Package: p.PkgPath}
	seen := make(map[string]bool)
	add := func(msg string) {
		if !seen[msg] {
			seen[msg] = true
			e.Problems = append(e.Problems, msg)
		}
	}
	for _, pe := range p.Errors {
		if header, rest, ok := strings.Cut(pe.Msg, "\n"); ok && pe.Kind == packages.ListError && strings.HasPrefix(header, "# ") {
			// The compiler's output, from building export data: "# path"
			// and the errors, which type-checking the source repeats.
			for line := range strings.SplitSeq(rest, "\n") {
				add(relPos(line, dir))
			}
			continue
		}
		msg := unloadedImport(p, pe.Msg)
		if pe.Pos != "" && pe.Pos != "-" {
			msg = relPos(pe.Pos, dir) + ": " + msg
		}
		add(msg)
	}
	if len(e.Problems) > 0 {
		return e
	}
	packages.Visit([]*packages.Package{p}, nil, func(q *packages.Package) {
		if e.Dependency == "" && q != p && len(q.Errors) > 0 {
			e.Dependency = q.PkgPath
			for _, qe := range q.Errors {
				if qe.Kind == packages.ListError && !strings.HasPrefix(qe.Msg, "# ") {
					// go's reason it could not load the package at all (a
					// module it may not download), which says what to fix;
					// not the compiler's output ("# path" and the errors)
					e.Problems = append(e.Problems, qe.Msg)
					break
				}
			}
		}
	})
	if e.Dependency == "" {
		e.Problems = []string{"does not type-check (go/packages gave no reason)"}
	}
	return e
}

// unloadedImport rewrites the type checker's "could not import Q (invalid
// package name: \"\")", which is all it can say of an import that go list
// could not load at all (a module the proxy refuses, a replacement
// directory that is missing), into go's own reason for Q, which says what
// to fix. Any other message is returned as it is.
func unloadedImport(p *packages.Package, msg string) string {
	path, ok := strings.CutPrefix(msg, "could not import ")
	if !ok {
		return msg
	}
	path, _, _ = strings.Cut(path, " ")
	q := p.Imports[path]
	if q == nil {
		return msg
	}
	for _, qe := range q.Errors {
		if qe.Kind == packages.ListError {
			return "could not import " + path + ": " + qe.Msg
		}
	}
	return msg
}

// relPos shows a "file:line:col" position with the file relative to dir
// when it lies inside it.
func relPos(pos, dir string) string {
	file, rest := pos, ""
	for range 2 {
		i := strings.LastIndexByte(file, ':')
		if i < 0 || strings.ContainsAny(file[i+1:], "/\\") {
			break
		}
		file, rest = file[:i], file[i:]+rest
	}
	return relFile(file, dir) + rest
}

// relFile shows file relative to dir when it lies inside it.
func relFile(file, dir string) string {
	if dir == "" {
		return file
	}
	if r, err := filepath.Rel(dir, file); err == nil && filepath.IsLocal(r) {
		return r
	}
	return file
}

func newFinding(fset *token.FileSet, analyzer, pkg string, d analysis.Diagnostic) Finding {
	f := Finding{
		Analyzer: analyzer,
		Package:  pkg,
		Category: d.Category,
		Pos:      fset.Position(d.Pos),
		Message:  d.Message,
		URL:      d.URL,
	}
	if d.End.IsValid() {
		f.End = fset.Position(d.End)
	}
	for _, r := range d.Related {
		rel := Related{Pos: fset.Position(r.Pos), Message: r.Message}
		if r.End.IsValid() {
			rel.End = fset.Position(r.End)
		}
		f.Related = append(f.Related, rel)
	}
	for _, sf := range d.SuggestedFixes {
		fix := Fix{Message: sf.Message}
		for _, e := range sf.TextEdits {
			end := e.End
			if !end.IsValid() {
				end = e.Pos // an insertion
			}
			fix.Edits = append(fix.Edits, Edit{
				Filename: fset.Position(e.Pos).Filename,
				Start:    fset.Position(e.Pos).Offset,
				End:      fset.Position(end).Offset,
				New:      string(e.NewText),
			})
		}
		f.Fixes = append(f.Fixes, fix)
	}
	return f
}

func compareFindings(a, b Finding) int {
	return cmp.Or(
		cmp.Compare(a.Pos.Filename, b.Pos.Filename),
		cmp.Compare(a.Pos.Offset, b.Pos.Offset),
		cmp.Compare(a.Analyzer, b.Analyzer),
		cmp.Compare(a.Message, b.Message),
	)
}
