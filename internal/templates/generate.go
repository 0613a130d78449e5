package templates

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// runtimeFS holds the runtime library's sources exactly as idemkit builds and tests them, so
// the code a user gets is the code idemkit's own store tests passed.
//
//go:embed runtime
var runtimeFS embed.FS

// runtimeMod is the part of idemkit's go.mod that the runtime's imports need: the go directive
// and the requirements of the modules the runtime imports, at the versions idemkit tests them
// with. A package cannot embed its module's go.mod from below it, so this is a copy that
// TestRuntimeModMatchesGoMod keeps equal to ../../go.mod (go test ./internal/templates -run
// TestRuntimeModMatchesGoMod -update rewrites it).
//
//go:embed runtime.mod
var runtimeMod []byte

const (
	idemkitModule = "github.com/idemkit/idemkit"
	// runtimeImport is the core package's import path inside idemkit; every runtime import path
	// starts with it and is rewritten to start with the user's directory instead.
	runtimeImport = idemkitModule + "/internal/templates/runtime/idem"
	// runtimeRoot is where runtimeImport's sources sit in runtimeFS.
	runtimeRoot = "runtime/idem"
	// coreName is the core package's name in the sources.
	coreName = "idem"
)

// stores maps each store name of --stores to its package, relative to the runtime root. The
// memory store lives in the core package, so it is always generated.
var stores = []struct{ name, dir string }{
	{"memory", "."},
	{"redis", "redisstore"},
	{"postgres", "pgstore"},
}

// StoreNames lists the store names GenerateRuntime accepts, memory first.
func StoreNames() []string {
	names := make([]string, len(stores))
	for i, s := range stores {
		names[i] = s.name
	}
	return names
}

// StoreDir is the directory of the named store's package relative to the runtime's core package
// ("." for memory), or "" for a name GenerateRuntime does not accept.
func StoreDir(name string) string {
	for _, s := range stores {
		if s.name == name {
			return s.dir
		}
	}
	return ""
}

// RuntimeOptions say where the runtime goes and which parts of it.
type RuntimeOptions struct {
	// Module is the path of the user's module, from their go.mod.
	Module string
	// Dir is the target directory relative to the module root, slash-separated; "." is the root.
	Dir string
	// Package names the core package; empty means the last element of its import path when that
	// is a usable name, else "idem". Subpackages keep their names.
	Package string
	// Stores are store names from StoreNames. memory is always included: it is the core
	// package's own store.
	Stores []string
	// WithTests adds the runtime's tests, the storetest conformance suite and the test helpers.
	WithTests bool
	// Version is the idemkit version written into every header.
	Version string
}

// Runtime is the generated library: every file, and what the command layer needs to put it in
// place and make it build.
type Runtime struct {
	// ImportPath and Package are the core package's import path and name.
	ImportPath, Package string
	// Stores are the stores generated, in StoreNames order.
	Stores []string
	// Files holds each file's content by its path relative to Dir, slash-separated.
	Files map[string][]byte
	// Dirs lists every directory, relative to Dir ("." for Dir itself), that some choice of
	// options generates into. Generated files found there and absent from Files are stale.
	Dirs []string
	// Requires lists the packages outside the standard library that Files import, with the
	// version of their module that idemkit tests the runtime with, sorted by package.
	Requires []Requirement
	// GoVersion is the lowest go directive the user's go.mod may have: idemkit's own.
	GoVersion string
	// Omitted lists the runtime's test files left out because they import a package that these
	// options do not generate, or use what such a file declares.
	Omitted []Omission
}

// Requirement is one imported package and the version of the module providing it.
type Requirement struct {
	Package, Module, Version string
}

// Omission is a test file left out of the generated runtime: Path imports Missing, a package
// these options do not generate, or — when Via is set — uses declarations of the test file Via,
// which was left out for that. Paths are relative to Dir.
type Omission struct {
	Path, Missing, Via string
}

// OptionError is a bad option: the caller's input, not a defect of the runtime.
type OptionError struct {
	Option, Value, Reason string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Option, e.Value, e.Reason)
}

// GenerateRuntime renders the embedded runtime library for the options: import paths and the
// core package's name rewritten for the user's module, only the chosen stores, tests only when
// asked, every Go file gofmt'ed, every file headed as generated with a checksum of its body. It
// is pure and deterministic: the same options give the same bytes.
//
// It fails with an *OptionError for bad options, and with a plain error when the runtime itself
// cannot be generated safely: a runtime file importing another idemkit package (the user's
// module could not build it), a library file needing a package the options leave out, or a file
// that cannot carry the header.
func GenerateRuntime(opts RuntimeOptions) (*Runtime, error) {
	src, err := fs.Sub(runtimeFS, runtimeRoot)
	if err != nil {
		return nil, err
	}
	mod, err := modfile.ParseLax("runtime.mod", runtimeMod, nil)
	if err != nil {
		return nil, fmt.Errorf("embedded runtime.mod: %w", err)
	}
	return generateRuntime(src, mod, opts)
}

// srcFile is one file of the runtime's sources.
type srcFile struct {
	path string // relative to the runtime root
	pkg  string // its package's directory, "." for the core
	data []byte
	test bool      // a _test.go file or test data
	ast  *ast.File // Go files of a package only; test data is copied as it is
}

// runtimeImports returns the package directories, relative to the runtime root, of f's imports
// of the runtime, in source order.
func (f *srcFile) runtimeImports() []string {
	var dirs []string
	for _, spec := range f.ast.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		if rel, ok := runtimeRel(p); ok {
			dirs = append(dirs, rel)
		}
	}
	return dirs
}

// runtimeRel returns the directory of import path p relative to the runtime root, if p is a
// runtime package.
func runtimeRel(p string) (string, bool) {
	if p == runtimeImport {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, runtimeImport+"/")
	return rest, ok
}

func generateRuntime(src fs.FS, mod *modfile.File, opts RuntimeOptions) (*Runtime, error) {
	rt, chosen, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	files, err := loadRuntime(src, fset)
	if err != nil {
		return nil, err
	}
	selected, err := selectPackages(files, chosen, opts.WithTests)
	if err != nil {
		return nil, err
	}

	var out []*srcFile
	dirs := map[string]bool{}
	for _, f := range files {
		dirs[path.Dir(f.path)] = true
		if selected[f.pkg] && (!f.test || opts.WithTests) {
			out = append(out, f)
		}
	}
	rt.Dirs = sortedKeys(dirs)
	out, rt.Omitted = omitTests(out, selected)

	alias := rt.Package != coreName && nameUsed(files, rt.Package)
	rt.Files = make(map[string][]byte, len(out))
	reqs := map[string]Requirement{}
	for _, f := range out {
		body := f.data
		if f.ast != nil {
			if err := requirements(f, mod, reqs); err != nil {
				return nil, err
			}
			if body, err = rewrite(fset, f, rt.ImportPath, rt.Package, alias); err != nil {
				return nil, err
			}
		}
		if rt.Files[f.path], err = withHeader(f.path, opts.Version, body); err != nil {
			return nil, err
		}
	}
	for _, p := range sortedKeys(reqs) {
		rt.Requires = append(rt.Requires, reqs[p])
	}
	if mod.Go != nil {
		rt.GoVersion = mod.Go.Version
	}
	return rt, nil
}

// checkOptions validates opts and returns the Runtime's naming fields filled in, with the set of
// chosen store packages.
func checkOptions(opts RuntimeOptions) (*Runtime, map[string]bool, error) {
	if opts.Module == "" {
		return nil, nil, &OptionError{"module path", "", "the target module's go.mod names no module"}
	}
	dir := opts.Dir
	if dir == "" || strings.Contains(dir, `\`) || path.IsAbs(dir) || path.Clean(dir) != dir ||
		dir == ".." || strings.HasPrefix(dir, "../") {
		return nil, nil, &OptionError{"dir", dir, "want a clean slash-separated path inside the module"}
	}
	importPath := opts.Module
	if dir != "." {
		for _, elem := range strings.Split(dir, "/") {
			if elem == "testdata" || strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".") {
				return nil, nil, &OptionError{"dir", dir, "the go command ignores directories named testdata or starting with . or _"}
			}
		}
		importPath += "/" + dir
	}
	if err := module.CheckImportPath(importPath); err != nil {
		return nil, nil, &OptionError{"dir", dir, fmt.Sprintf("not a valid import path: %v", err)}
	}
	name := opts.Package
	if name == "" {
		name = defaultPackage(importPath)
	} else if reason := badPackageName(name); reason != "" {
		return nil, nil, &OptionError{"package", name, reason}
	}
	chosen := map[string]bool{".": true}
	for _, s := range opts.Stores {
		i := slices.IndexFunc(stores, func(st struct{ name, dir string }) bool { return st.name == s })
		if i < 0 {
			return nil, nil, &OptionError{"store", s, "no such store; known stores: " + strings.Join(StoreNames(), ", ")}
		}
		chosen[stores[i].dir] = true
	}
	rt := &Runtime{ImportPath: importPath, Package: name}
	for _, s := range stores {
		if chosen[s.dir] {
			rt.Stores = append(rt.Stores, s.name)
		}
	}
	return rt, chosen, nil
}

// badPackageName says why name cannot name the core package, or returns "".
func badPackageName(name string) string {
	switch {
	case !token.IsIdentifier(name):
		if token.IsKeyword(name) {
			return "a Go keyword cannot name a package"
		}
		return "not a Go identifier"
	case name == "_":
		return "the blank identifier cannot name a package"
	case name == "main" || name == "init":
		return name + " cannot name a library package"
	case strings.HasSuffix(name, "_test"):
		return "the _test suffix is reserved for external test packages"
	}
	return ""
}

// defaultPackage is the last element of importPath when it can name a package, as Go's
// convention has it, and coreName otherwise.
func defaultPackage(importPath string) string {
	name := path.Base(importPath)
	if badPackageName(name) != "" {
		return coreName
	}
	return name
}

// loadRuntime reads every file of the runtime's sources, parsing the Go files of its packages.
// Fuzzing's regression inputs (testdata/fuzz) are idemkit's own and stay behind.
func loadRuntime(src fs.FS, fset *token.FileSet) ([]*srcFile, error) {
	var files []*srcFile
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "fuzz" && path.Base(path.Dir(p)) == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		f := &srcFile{path: p, pkg: path.Dir(p), data: data}
		if before, _, ok := strings.Cut("/"+p, "/testdata/"); ok {
			f.pkg, f.test = path.Clean("."+before), true
		} else if path.Ext(p) == ".go" {
			f.test = strings.HasSuffix(p, "_test.go")
			if f.ast, err = parser.ParseFile(fset, p, data, parser.ParseComments); err != nil {
				return fmt.Errorf("runtime source %w", err)
			}
			if err := checkImports(f); err != nil {
				return err
			}
		}
		files = append(files, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.ast == nil {
			continue
		}
		for _, dir := range f.runtimeImports() {
			if !slices.ContainsFunc(files, func(g *srcFile) bool { return g.pkg == dir && g.ast != nil && !g.test }) {
				return nil, fmt.Errorf("runtime source %s imports %s, which is not a runtime package", f.path, path.Join(runtimeImport, dir))
			}
		}
	}
	return files, nil
}

// checkImports refuses a runtime file that imports idemkit outside the runtime: generated into
// a user's module, the import would not resolve.
func checkImports(f *srcFile) error {
	for _, spec := range f.ast.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return fmt.Errorf("runtime source %s: import %s: %w", f.path, spec.Path.Value, err)
		}
		if _, ok := runtimeRel(p); ok {
			continue
		}
		if p == idemkitModule || strings.HasPrefix(p, idemkitModule+"/") {
			return fmt.Errorf("runtime source %s imports %s: generated code may import only the runtime itself, the standard library and third-party modules", f.path, p)
		}
	}
	return nil
}

// selectPackages decides which package directories are generated. The core, every chosen store
// and every library package (idemhttp and whatever else non-test code may use) always are; a
// package imported only by tests (storetest, internal/testenv) is test support and comes only
// with tests. A generated package whose non-test code imports a package left out is an error: the
// result would not build.
func selectPackages(files []*srcFile, chosen map[string]bool, withTests bool) (map[string]bool, error) {
	storeDir := map[string]bool{}
	for _, s := range stores {
		storeDir[s.dir] = s.dir != "."
	}
	byCode, byTests := map[string]bool{}, map[string]bool{}
	for _, f := range files {
		if f.ast == nil {
			continue
		}
		for _, dir := range f.runtimeImports() {
			if dir == f.pkg {
				continue
			}
			if f.test {
				byTests[dir] = true
			} else {
				byCode[dir] = true
			}
		}
	}
	selected := map[string]bool{}
	for _, f := range files {
		switch dir := f.pkg; {
		case storeDir[dir]:
			selected[dir] = chosen[dir]
		case byTests[dir] && !byCode[dir]:
			selected[dir] = withTests
		default:
			selected[dir] = true
		}
	}
	for _, s := range stores {
		if chosen[s.dir] && !selected[s.dir] {
			return nil, fmt.Errorf("store %s: the runtime has no package %s", s.name, s.dir)
		}
	}
	for _, f := range files {
		if f.ast == nil || f.test || !selected[f.pkg] {
			continue
		}
		if missing := firstMissing(f.runtimeImports(), selected); missing != "" {
			return nil, fmt.Errorf("runtime source %s imports %s, which these options do not generate", f.path, missing)
		}
	}
	return selected, nil
}

// omitTests leaves out of files the test files that cannot build: those importing a package
// that is not selected, and — until none is left — those using a top-level name that a test file
// left out in the same directory declares (a helper shared between test files). The second
// check works on names, not types, so it may leave out a file that merely uses the same name;
// it never keeps one that would not compile for this reason.
func omitTests(files []*srcFile, selected map[string]bool) ([]*srcFile, []Omission) {
	omitted := map[*srcFile]Omission{}
	for _, f := range files {
		if f.test && f.ast != nil {
			if missing := firstMissing(f.runtimeImports(), selected); missing != "" {
				omitted[f] = Omission{Path: f.path, Missing: missing}
			}
		}
	}
	for changed := len(omitted) > 0; changed; {
		changed = false
		for _, f := range files {
			if _, gone := omitted[f]; gone || !f.test || f.ast == nil {
				continue
			}
			used := unresolvedNames(f.ast)
			for _, g := range files {
				o, gone := omitted[g]
				if gone && g.pkg == f.pkg && slices.ContainsFunc(topLevelNames(g.ast), func(n string) bool { return used[n] }) {
					omitted[f] = Omission{Path: f.path, Missing: o.Missing, Via: g.path}
					changed = true
					break
				}
			}
		}
	}
	var kept []*srcFile
	var list []Omission
	for _, f := range files {
		if o, gone := omitted[f]; gone {
			list = append(list, o)
		} else {
			kept = append(kept, f)
		}
	}
	return kept, list
}

// topLevelNames lists the names f declares at package level, methods included.
func topLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names = append(names, d.Name.Name)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					names = append(names, spec.Name.Name)
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// unresolvedNames lists the identifiers of f that the parser could not resolve inside f: names
// declared in other files of the package, imported packages, selected fields and methods.
func unresolvedNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Obj == nil && id != f.Name {
			names[id.Name] = true
		}
		return true
	})
	return names
}

// firstMissing returns the first of dirs that is not selected, or "".
func firstMissing(dirs []string, selected map[string]bool) string {
	for _, dir := range dirs {
		if !selected[dir] {
			return dir
		}
	}
	return ""
}

// nameUsed reports whether name is an identifier anywhere in the runtime's Go files other than
// a package clause. Renaming the core package to such a name could make a reference to it
// collide with another import or a declaration, so the rename then keeps the old name as an
// explicit import name instead of rewriting references.
func nameUsed(files []*srcFile, name string) bool {
	for _, f := range files {
		if f.ast == nil {
			continue
		}
		used := false
		ast.Inspect(f.ast, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id != f.ast.Name && id.Name == name {
				used = true
			}
			return !used
		})
		if used {
			return true
		}
	}
	return false
}

// rewrite returns f's source for the user's module: runtime import paths moved under
// importPath, the core package renamed to name (its package clauses, its doc comment's first
// words, and references to it — or, with alias, an explicit import name in their place), and
// the result gofmt'ed. It edits f's syntax tree, which is used once.
func rewrite(fset *token.FileSet, f *srcFile, importPath, name string, alias bool) ([]byte, error) {
	file := f.ast
	if f.pkg == "." && name != coreName {
		switch file.Name.Name {
		case coreName:
			file.Name.Name = name
			renameDoc(file.Doc, name)
		case coreName + "_test":
			file.Name.Name = name + "_test"
		}
	}
	for _, spec := range file.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		rel, ok := runtimeRel(p)
		if !ok {
			continue
		}
		spec.Path.Value = strconv.Quote(path.Join(importPath, rel))
		if rel != "." || spec.Name != nil || name == coreName {
			continue
		}
		if alias {
			spec.Name = &ast.Ident{NamePos: spec.Path.Pos(), Name: coreName}
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			// A reference to an import is an identifier the parser could not resolve in the
			// file; one declared in the file (a variable named like the package) has an object.
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == coreName && id.Obj == nil {
					id.Name = name
				}
			}
			return true
		})
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return nil, fmt.Errorf("format %s: %w", f.path, err)
	}
	return buf.Bytes(), nil
}

// renameDoc makes a package doc comment that opens "Package idem ..." open with name instead,
// as go doc expects.
func renameDoc(doc *ast.CommentGroup, name string) {
	if doc == nil || len(doc.List) == 0 {
		return
	}
	c := doc.List[0]
	if rest, ok := strings.CutPrefix(c.Text, "// Package "+coreName+" "); ok {
		c.Text = "// Package " + name + " " + rest
	}
}

// requirements adds to reqs each package f imports from outside the standard library and the
// runtime, with its module's version from mod.
func requirements(f *srcFile, mod *modfile.File, reqs map[string]Requirement) error {
	for _, spec := range f.ast.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		if _, ok := runtimeRel(p); ok || !strings.Contains(strings.Split(p, "/")[0], ".") {
			continue
		}
		var best *modfile.Require
		for _, r := range mod.Require {
			m := r.Mod.Path
			if (p == m || strings.HasPrefix(p, m+"/")) && (best == nil || len(m) > len(best.Mod.Path)) {
				best = r
			}
		}
		if best == nil {
			return fmt.Errorf("runtime source %s imports %s, which no requirement of the embedded runtime.mod provides (go test ./internal/templates -run TestRuntimeModMatchesGoMod -update)", f.path, p)
		}
		reqs[p] = Requirement{Package: p, Module: best.Mod.Path, Version: best.Mod.Version}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
