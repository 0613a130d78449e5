package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Services seldom write a script's source at the call that runs it. The
// script is made once and kept: in a struct field set by a constructor
// (&Store{claim: redis.NewScript(src)}), in a package variable set by
// init, from a file embedded with //go:embed (a string, a []byte, or an
// embed.FS read by name), or loaded with SCRIPT LOAD and run by its SHA
// (s.sha, err = rdb.ScriptLoad(ctx, src).Result(); rdb.EvalSha(ctx,
// s.sha, keys, ...)). keptScript follows the script back to its source
// through these, in the package that runs it, and reads the call as
// redisScript reads one whose source is in sight.

// maxKeptDepth bounds how many steps (a variable, a conversion, a
// helper, a read) a script is followed back through.
const maxKeptDepth = 10

// maxScriptFile bounds an embedded file read for a script's source.
const maxScriptFile = 1 << 20

// keptScript reads a call that runs a Lua script kept away from it as
// the command the script amounts to on one of its keys. fset names the
// package's files, which an embedded script is found beside.
func keptScript(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr, fn *types.Func) (RedisCall, bool) {
	run, ok := scriptCall(info, call, fn, bound{info: info, fset: fset}.sources())
	if !ok {
		return RedisCall{}, false
	}
	return scriptCommand(run, fn)
}

// bound is where a kept script is looked for: the package's type
// information, its file set and, inside a helper that makes or reads the
// script (script("claim"), mustRead(name)), the constant strings its
// parameters were given at the call.
type bound struct {
	info *types.Info
	fset *gotoken.FileSet
	args map[*types.Var]string
	// foreign answers for another package's variable (scripts.Claim)
	// what its package's facts say it holds; nil where none are read.
	foreign Foreign
}

// Foreign returns the Lua source a package variable of another package
// holds, as that package's analysis found it and exported it as a fact
// (see KeptVar), with redigo's count of keys (-1 where the script does
// not say); ok is false when it holds none the analysis could read.
type Foreign func(v *types.Var) (src string, keys int, ok bool)

// sources reads a kept script's source as scriptCall asks for it.
func (b bound) sources() scriptSources {
	return scriptSources{
		script: func(e ast.Expr) (string, int, bool) { return b.keptSource(e, 0) },
		text:   func(e ast.Expr) (string, bool) { return b.keptText(e, 0) },
		sha:    func(e ast.Expr) (string, bool) { return b.shaSource(e, 0) },
	}
}

// keptSource returns the source of the script e holds, as scriptSource
// does, following e through fields and package variables to the
// NewScript that made it and the source to what it was read from. keys
// is redigo's count of keys, -1 where the script does not say.
func (b bound) keptSource(e ast.Expr, depth int) (src string, keys int, ok bool) {
	info := b.info
	if depth > maxKeptDepth {
		return "", 0, false
	}
	call, isCall := ast.Unparen(e).(*ast.CallExpr)
	if !isCall {
		if v := b.imported(e); v != nil {
			return b.foreign(v)
		}
		return oneOf(heldValues(info, e), func(v ast.Expr) (string, int, bool) { return b.keptSource(v, depth+1) })
	}
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Signature().Recv() != nil {
		return "", 0, false
	}
	if inner, values, ok := b.helper(call, fn, depth); ok {
		return oneOf(values, func(v ast.Expr) (string, int, bool) { return inner.keptSource(v, depth+1) })
	}
	switch {
	case (inPackage(fn, redisPath) || inPackage(fn, redisV8Path)) && fn.Name() == "NewScript" && len(call.Args) == 1:
		src, ok = b.keptText(call.Args[0], depth+1)
		return src, -1, ok
	case inPackage(fn, redigoPath) && fn.Name() == "NewScript" && len(call.Args) == 2:
		tv := info.Types[call.Args[0]]
		n, isConst := 0, tv.Value != nil
		if isConst {
			n, isConst = constInt(tv.Value.ExactString())
		}
		if !isConst {
			return "", 0, false
		}
		src, ok = b.keptText(call.Args[1], depth+1)
		return src, n, ok
	case inPackage(fn, rueidisPath) && strings.HasPrefix(fn.Name(), "NewLuaScript") && len(call.Args) >= 1:
		src, ok = b.keptText(call.Args[0], depth+1)
		return src, -1, ok
	}
	return "", 0, false
}

// text returns a constant string, or one made with + and path.Join of
// constants and the helper's parameters bound to constants.
func (b bound) text(e ast.Expr) (string, bool) {
	if s, ok := ConstString(b.info, e); ok {
		return s, true
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := b.info.Uses[x].(*types.Var); ok {
			s, ok := b.args[v]
			return s, ok
		}
	case *ast.BinaryExpr:
		if x.Op == gotoken.ADD {
			l, lok := b.text(x.X)
			r, rok := b.text(x.Y)
			return l + r, lok && rok
		}
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(b.info, x).(*types.Func)
		if fn == nil || fn.Pkg() == nil || x.Ellipsis.IsValid() || len(x.Args) == 0 {
			return "", false
		}
		parts := make([]string, len(x.Args))
		for i, a := range x.Args {
			var ok bool
			if parts[i], ok = b.text(a); !ok {
				return "", false
			}
		}
		switch p := fn.Pkg().Path(); {
		case (p == "path" || p == "path/filepath") && fn.Name() == "Join":
			return path.Join(parts...), true
		case p == "fmt" && fn.Name() == "Sprintf":
			return sprintf(parts[0], parts[1:])
		}
	}
	return "", false
}

// sprintf fills a format whose verbs are all %s or %v with strings.
func sprintf(format string, args []string) (string, bool) {
	var out strings.Builder
	for {
		i := strings.IndexByte(format, '%')
		if i < 0 || i+1 >= len(format) {
			if i >= 0 || len(args) > 0 {
				return "", false
			}
			out.WriteString(format)
			return out.String(), true
		}
		out.WriteString(format[:i])
		switch verb := format[i+1]; {
		case verb == '%':
			out.WriteByte('%')
		case (verb == 's' || verb == 'v') && len(args) > 0:
			out.WriteString(args[0])
			args = args[1:]
		default:
			return "", false
		}
		format = format[i+2:]
	}
}

// helper reads a call of a function of the package that makes or reads
// a script for its caller (func script(name string) *redis.Script, or
// mustRead(name) string): what its return statements give back first,
// with its parameters bound to the constant strings the call passes.
func (b bound) helper(call *ast.CallExpr, fn *types.Func, depth int) (bound, []ast.Expr, bool) {
	if fn.Pkg() == nil || fn.Signature().Recv() != nil || fn.Signature().Results().Len() == 0 {
		return bound{}, nil, false
	}
	var decl *ast.FuncDecl
	for _, n := range enclosing(b.info, fn.Pos()) {
		if d, ok := n.(*ast.FuncDecl); ok && d.Name.Pos() == fn.Pos() {
			decl = d
		}
	}
	if decl == nil || decl.Body == nil {
		return bound{}, nil, false
	}
	inner := bound{info: b.info, fset: b.fset, args: map[*types.Var]string{}, foreign: b.foreign}
	params := fn.Signature().Params()
	for i := 0; i < params.Len() && i < len(call.Args); i++ {
		if s, ok := b.keptText(call.Args[i], depth+1); ok {
			inner.args[params.At(i)] = s
		}
	}
	results := fn.Signature().Results()
	failing := func(ret *ast.ReturnStmt) bool {
		// return "", fmt.Errorf(...): the helper failed, and gave nothing
		last := len(ret.Results) - 1
		return last > 0 && types.Identical(results.At(results.Len()-1).Type(), types.Universe.Lookup("error").Type()) &&
			!isNilIdent(b.info, ret.Results[last])
	}
	var values []ast.Expr
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 && !isNilIdent(b.info, n.Results[0]) && !failing(n) {
				values = append(values, n.Results[0])
			}
		}
		return true
	})
	return inner, values, len(values) > 0
}

func isNilIdent(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

func constInt(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 0
}

// keptText returns the string e holds: a constant, a string or []byte
// conversion of one, a variable or field set to one, a file embedded
// into a variable with //go:embed, or an embed.FS's ReadFile of a
// constant name.
func (b bound) keptText(e ast.Expr, depth int) (string, bool) {
	info := b.info
	if s, ok := b.text(e); ok {
		return s, true
	}
	if depth > maxKeptDepth {
		return "", false
	}
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		if tv, isType := info.Types[call.Fun]; isType && tv.IsType() && len(call.Args) == 1 {
			return b.keptText(call.Args[0], depth+1) // string(b), []byte(s)
		}
		if fn, _ := typeutil.Callee(info, call).(*types.Func); fn != nil {
			if inner, values, ok := b.helper(call, fn, depth); ok {
				src, _, ok := oneOf(values, func(v ast.Expr) (string, int, bool) {
					s, ok := inner.keptText(v, depth+1)
					return s, 0, ok
				})
				return src, ok
			}
		}
		return b.embeddedRead(call)
	}
	if v := b.imported(e); v != nil {
		src, _, ok := b.foreign(v)
		return src, ok
	}
	if v := heldVar(info, e); v != nil {
		if src, ok := b.embedded(v, ""); ok {
			return src, true
		}
	}
	src, _, ok := oneOf(heldValues(info, e), func(v ast.Expr) (string, int, bool) {
		s, ok := b.keptText(v, depth+1)
		return s, 0, ok
	})
	return src, ok
}

// shaSource returns the source of the script whose SHA e holds: the
// reply of a SCRIPT LOAD of a source keptText reads
// (rdb.ScriptLoad(ctx, src).Result() or .Val()), or a Script's Hash.
func (b bound) shaSource(e ast.Expr, depth int) (string, bool) {
	info := b.info
	if depth > maxKeptDepth {
		return "", false
	}
	call, isCall := ast.Unparen(e).(*ast.CallExpr)
	if !isCall {
		src, _, ok := oneOf(heldValues(info, e), func(v ast.Expr) (string, int, bool) {
			s, ok := b.shaSource(v, depth+1)
			return s, 0, ok
		})
		return src, ok
	}
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Signature().Recv() == nil || !(inPackage(fn, redisPath) || inPackage(fn, redisV8Path)) {
		return "", false
	}
	switch fn.Name() {
	case "Result", "Val":
		inner, ok := ast.Unparen(receiverOf(call)).(*ast.CallExpr)
		if !ok {
			return "", false
		}
		return b.shaSource(inner, depth+1)
	case "ScriptLoad":
		if len(call.Args) == 2 {
			return b.keptText(call.Args[1], depth+1)
		}
	case "Hash", "Load":
		if typeName(fn.Signature().Recv().Type()) == "Script" {
			src, _, ok := b.keptSource(receiverOf(call), depth+1)
			return src, ok
		}
	}
	return "", false
}

// oneOf reads each of values with read and returns what they all agree
// on; nothing when any of them cannot be read or two differ.
func oneOf(values []ast.Expr, read func(ast.Expr) (string, int, bool)) (string, int, bool) {
	var src string
	var n int
	for i, v := range values {
		s, k, ok := read(v)
		if !ok || i > 0 && (s != src || k != n) {
			return "", 0, false
		}
		src, n = s, k
	}
	return src, n, len(values) > 0
}

// heldVar returns the variable or field e names.
func heldVar(info *types.Info, e ast.Expr) *types.Var {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, _ := info.Uses[x].(*types.Var)
		return v
	case *ast.SelectorExpr:
		if sel, ok := info.Selections[x]; ok && sel.Kind() == types.FieldVal {
			v, _ := sel.Obj().(*types.Var)
			return v
		}
		v, _ := info.Uses[x.Sel].(*types.Var) // pkg.Var
		return v
	}
	return nil
}

// heldValues returns every value the variable or field e names is given:
// a local's one definition (see valueOf), or, for a package variable or
// a field, its declaration's value, each assignment to it and each
// composite literal that sets it, anywhere in the package. Nil when e
// names neither, or a local assigned again.
func heldValues(info *types.Info, e ast.Expr) []ast.Expr {
	v := heldVar(info, e)
	if v == nil || v.Pkg() == nil {
		return nil
	}
	if id, ok := ast.Unparen(e).(*ast.Ident); ok && v.Parent() != v.Pkg().Scope() {
		if value := valueOf(info, id); value != nil {
			return []ast.Expr{value}
		}
		if value := reaching(info, v, id); value != nil {
			return []ast.Expr{value}
		}
		return nil
	}
	return varValues(info, v)
}

// varValues returns every value the package variable or field v is given
// in the package: its declaration's value, each assignment to it and each
// composite literal that sets it. Nil when one of them is not its own (a
// second result).
func varValues(info *types.Info, v *types.Var) []ast.Expr {
	var values []ast.Expr
	for n := range info.Scopes {
		file, ok := n.(*ast.File)
		if !ok || info.Scopes[file].Parent() != v.Pkg().Scope() {
			continue // another package's field or variable: its assignments are out of sight
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if info.Defs[name] == v && len(n.Values) == len(n.Names) {
						values = append(values, n.Values[i])
					}
				}
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if heldVar(info, l) != v && info.Defs[identOf(l)] != v {
						continue
					}
					switch {
					case len(n.Lhs) == len(n.Rhs):
						values = append(values, n.Rhs[i])
					case len(n.Rhs) == 1 && i == 0:
						values = append(values, n.Rhs[0]) // sha, err := ...Result()
					default:
						values = append(values, nil) // a second result: not the script
					}
				}
			case *ast.CompositeLit:
				if value := fieldIn(info, n, v); value != nil {
					values = append(values, value)
				}
			}
			return true
		})
	}
	if slices.Contains(values, nil) {
		return nil
	}
	return values
}

// reaching returns the value a local assigned more than once holds where
// id reads it, when the last assignment before id is a statement of the
// same block: src, err := load("claim"); ...; claim = redis.NewScript(src);
// src, err = load("mark"); mark = redis.NewScript(src).
func reaching(info *types.Info, v *types.Var, id *ast.Ident) ast.Expr {
	body := innermostFunc(enclosing(info, v.Pos()))
	if body == nil {
		return nil
	}
	var last *ast.AssignStmt
	var value ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Pos() >= id.Pos() || as.Tok != gotoken.ASSIGN && as.Tok != gotoken.DEFINE {
			return true
		}
		for i, l := range as.Lhs {
			if heldVar(info, l) != v && info.Defs[identOf(l)] != v {
				continue
			}
			last, value = as, nil
			switch {
			case len(as.Lhs) == len(as.Rhs):
				value = as.Rhs[i]
			case len(as.Rhs) == 1 && i == 0:
				value = as.Rhs[0]
			}
		}
		return true
	})
	if last == nil || value == nil || innermostBlock(info, last.Pos()) != innermostBlock(info, id.Pos()) {
		return nil
	}
	return value
}

// innermostBlock returns the block statement around pos.
func innermostBlock(info *types.Info, pos gotoken.Pos) *ast.BlockStmt {
	for _, n := range enclosing(info, pos) {
		if b, ok := n.(*ast.BlockStmt); ok {
			return b
		}
	}
	return nil
}

// fieldIn returns the value a struct literal gives the field v, by name
// or by position.
func fieldIn(info *types.Info, lit *ast.CompositeLit, v *types.Var) ast.Expr {
	if !v.IsField() {
		return nil
	}
	st, ok := info.TypeOf(lit).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for i, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && info.Uses[id] == v {
				return kv.Value
			}
			continue
		}
		if i < st.NumFields() && st.Field(i) == v {
			return elt
		}
	}
	return nil
}

// embeddedRead reads fs.ReadFile("scripts/claim.lua") on an embed.FS
// variable of the package: the file it names, when one of the variable's
// //go:embed patterns covers it.
func (b bound) embeddedRead(call *ast.CallExpr) (string, bool) {
	info := b.info
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "embed" || fn.Name() != "ReadFile" || len(call.Args) != 1 {
		return "", false
	}
	name, ok := b.text(call.Args[0])
	v := heldVar(info, receiverOf(call))
	if !ok || v == nil {
		return "", false
	}
	return b.embedded(v, name)
}

// embedded returns the content of the file a package variable is
// embedded from: the variable's one pattern, naming one file, for a
// string or []byte; name, covered by one of the patterns, for an
// embed.FS.
func (b bound) embedded(v *types.Var, name string) (string, bool) {
	if v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return "", false
	}
	path := enclosing(b.info, v.Pos())
	var patterns []string
	var file *ast.File
	for _, n := range path {
		switch n := n.(type) {
		case *ast.ValueSpec:
			patterns = append(patterns, embedPatterns(n.Doc)...)
		case *ast.GenDecl:
			if len(patterns) == 0 && len(n.Specs) == 1 {
				patterns = embedPatterns(n.Doc)
			}
		case *ast.File:
			file = n
		}
	}
	if file == nil || len(patterns) == 0 {
		return "", false
	}
	if name == "" {
		if len(patterns) != 1 || strings.ContainsAny(patterns[0], "*?[") {
			return "", false
		}
		name = patterns[0]
	} else if !slices.ContainsFunc(patterns, func(p string) bool { return embedCovers(p, name) }) {
		return "", false
	}
	dir := b.dirOf(file)
	if dir == "" || !validEmbedName(name) {
		return "", false
	}
	full := filepath.Join(dir, filepath.FromSlash(name))
	if st, err := os.Stat(full); err != nil || !st.Mode().IsRegular() || st.Size() > maxScriptFile {
		return "", false
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return "", false
	}
	return string(data), true
}

// embedPatterns returns the patterns of the //go:embed lines of a doc
// comment.
func embedPatterns(doc *ast.CommentGroup) []string {
	if doc == nil {
		return nil
	}
	var out []string
	for _, c := range doc.List {
		rest, ok := strings.CutPrefix(c.Text, "//go:embed")
		if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
			var f string
			if q, err := strconv.QuotedPrefix(rest); err == nil {
				f, _ = strconv.Unquote(q)
				rest = rest[len(q):]
			} else if i := strings.IndexAny(rest, " \t"); i >= 0 {
				f, rest = rest[:i], rest[i:]
			} else {
				f, rest = rest, ""
			}
			out = append(out, strings.TrimPrefix(f, "all:"))
		}
	}
	return out
}

// embedCovers reports whether an embed pattern names the file name: the
// file itself, a glob that matches it, or a directory above it.
func embedCovers(pattern, name string) bool {
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	dir := path.Dir(name)
	for dir != "." && dir != "/" {
		if ok, _ := path.Match(pattern, dir); ok {
			return true
		}
		dir = path.Dir(dir)
	}
	return false
}

// validEmbedName reports whether name stays inside the package directory,
// as go:embed requires of its patterns.
func validEmbedName(name string) bool {
	return name != "" && !path.IsAbs(name) && path.Clean(name) == name && !strings.HasPrefix(name, "../") && name != ".."
}

// dirOf returns the directory a file of the package is in, which its
// //go:embed patterns are relative to, by the name the file set gives
// the file: go vet, go/packages and analysistest all name a package's Go
// files by their absolute paths. "" when the name is not one.
func (b bound) dirOf(file *ast.File) string {
	if b.fset == nil {
		return ""
	}
	f := b.fset.File(file.FileStart)
	if f == nil || !filepath.IsAbs(f.Name()) {
		return ""
	}
	return filepath.Dir(f.Name())
}

// imported returns the package variable of another package e names
// (scripts.Claim), when foreign facts are read; nil otherwise.
func (b bound) imported(e ast.Expr) *types.Var {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if b.foreign == nil || !ok {
		return nil
	}
	if x, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || !isPkgName(b.info, x) {
		return nil
	}
	v, _ := b.info.Uses[sel.Sel].(*types.Var)
	return v
}

func isPkgName(info *types.Info, id *ast.Ident) bool {
	_, ok := info.Uses[id].(*types.PkgName)
	return ok
}

// KeptVar returns the Lua source the exported package variable v holds,
// for its package to export as a fact that the packages using it read
// back through a Foreign: a go-redis or redigo Script or a rueidis Lua
// made from a source keptSource reads (with redigo's count of keys, -1
// where the script does not say), or a string or []byte of a script's
// text (constant, embedded, read by a helper). foreign reads the
// variables of the packages v's own is made from.
func KeptVar(fset *gotoken.FileSet, info *types.Info, v *types.Var, foreign Foreign) (src string, keys int, ok bool) {
	if !v.Exported() || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return "", 0, false
	}
	b := bound{info: info, fset: fset, foreign: foreign}
	if scriptType(v.Type()) {
		return oneOf(varValues(info, v), func(e ast.Expr) (string, int, bool) { return b.keptSource(e, 1) })
	}
	if !textType(v.Type()) || !scriptImports(v.Pkg()) {
		return "", 0, false
	}
	src, ok = b.embedded(v, "")
	if !ok {
		src, _, ok = oneOf(varValues(info, v), func(e ast.Expr) (string, int, bool) {
			s, ok := b.keptText(e, 1)
			return s, 0, ok
		})
	}
	if !ok || !luaCallRE.MatchString(src) {
		return "", 0, false
	}
	return src, -1, true
}

// scriptType reports whether t is a script value the libraries make:
// go-redis's or redigo's *Script, rueidis's *Lua.
func scriptType(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() {
	case redisPath, redisV8Path, redigoPath:
		return n.Obj().Name() == "Script"
	case rueidisPath:
		return n.Obj().Name() == "Lua"
	}
	return false
}

// scriptImports reports whether a package imports what a script's text
// is kept for or with: a Redis library, or embed. Only such a package's
// text variables are read, as go vet runs the analysis on every
// dependency.
func scriptImports(p *types.Package) bool {
	return slices.ContainsFunc(p.Imports(), func(i *types.Package) bool {
		switch i.Path() {
		case redisPath, redisV8Path, redigoPath, rueidisPath, "embed":
			return true
		}
		return false
	})
}

// textType reports whether t is a string or a []byte.
func textType(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&types.IsString != 0
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	return false
}

// ScriptAccess reads a call that runs a Lua script kept away from it, as
// classifyMore does, reading another package's variables through
// foreign: rdb.Get then scripts.MarkDone.Run(ctx, rdb, keys, ...) are a
// GET and a SET.
func ScriptAccess(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr, foreign Foreign) (Access, bool) {
	c, ok := ScriptRedis(fset, info, call, foreign)
	if !ok {
		return Access{}, false
	}
	return redisAccess(info, call, c)
}

// ScriptRedis is ScriptAccess's reading as the RedisCall it amounts to,
// as Redis gives one for a script in sight: the checks that follow a
// claim read its SET NX, DEL or SET, and what a SET stores, from it.
func ScriptRedis(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr, foreign Foreign) (RedisCall, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || foreign == nil {
		return RedisCall{}, false
	}
	run, ok := scriptCall(info, call, fn.Origin(), bound{info: info, fset: fset, foreign: foreign}.sources())
	if !ok {
		return RedisCall{}, false
	}
	return scriptCommand(run, fn.Origin())
}

// A service often runs its scripts through a helper of its own: a
// function given the script (runScript(ctx, s *redis.Script, keys
// []string, args ...any)), or a type that wraps it (type Script struct{
// s *redis.Script }, made by newScript(rdb, src), run by its Run). The
// helper's body does not know the script; its callers do. ScriptForward
// says where the helper takes the script, its keys and its arguments
// from, and ForwardedScript reads each call of the helper as the command
// the script it is given amounts to.

// ScriptForward says where a helper that runs a Lua script for its
// caller takes it from: parameters by index.
type ScriptForward struct {
	// Script is the parameter that holds the script, or its source text
	// when Text; -1 for the receiver.
	Script int
	// Field is the name of the field of Script's value that holds the
	// script, or "".
	Field string
	Text  bool
	// Keys is the parameter that holds the keys slice, or -1 when the
	// helper makes the slice of KeyParams.
	Keys      int
	KeyParams []int
	// Args are the parameters each argument of the script is given by,
	// -1 for one the helper makes; Spread marks a last one that is a
	// variadic parameter spread into the call.
	Args   []int
	Spread bool
}

// ForwardsScript reports whether call, in the body of a function whose
// parameters have the indices params and whose receiver is recv, runs a
// script through go-redis that the function's caller gives it: a
// Script's Run, Eval or EvalSha (and their RO forms) on a parameter or a
// field of one or of the receiver, or a client's Eval of a parameter's
// text, with keys from the parameters.
func ForwardsScript(info *types.Info, call *ast.CallExpr, params map[*types.Var]int, recv *types.Var) (ScriptForward, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || fn.Signature().Recv() == nil || !(inPackage(fn, redisPath) || inPackage(fn, redisV8Path)) || len(call.Args) < 3 {
		return ScriptForward{}, false
	}
	param := func(e ast.Expr) int {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if v, ok := info.Uses[id].(*types.Var); ok {
				if i, ok := params[v]; ok {
					return i
				}
				if recv != nil && v == recv {
					return -1
				}
			}
		}
		return -2
	}
	var f ScriptForward
	var script ast.Expr
	switch typeName(fn.Signature().Recv().Type()) {
	case "Script":
		if !slices.Contains([]string{"Run", "RunRO", "Eval", "EvalRO", "EvalSha", "EvalShaRO"}, fn.Name()) {
			return ScriptForward{}, false
		}
		script = receiverOf(call)
		if sel, ok := ast.Unparen(script).(*ast.SelectorExpr); ok {
			if s, ok := info.Selections[sel]; ok && s.Kind() == types.FieldVal {
				script, f.Field = sel.X, sel.Sel.Name
			}
		}
	default:
		if fn.Name() != "Eval" && fn.Name() != "EvalRO" {
			return ScriptForward{}, false
		}
		script, f.Text = call.Args[1], true
	}
	if f.Script = param(script); f.Script == -2 || f.Script == -1 && f.Field == "" {
		return ScriptForward{}, false
	}
	f.Keys = param(call.Args[2])
	if f.Keys < 0 {
		elems := sliceElems(info, call.Args[2])
		for _, e := range elems {
			if i := param(e); i >= 0 {
				f.KeyParams = append(f.KeyParams, i)
			} else {
				return ScriptForward{}, false
			}
		}
		if len(elems) == 0 {
			return ScriptForward{}, false
		}
		f.Keys = -1
	}
	for _, a := range call.Args[3:] {
		f.Args = append(f.Args, max(param(a), -1))
	}
	f.Spread = call.Ellipsis.IsValid() && len(f.Args) > 0 && f.Args[len(f.Args)-1] >= 0
	return f, true
}

// ForwardedScript reads a call of a helper fn that runs the script f
// says for its caller, as the command the script the call gives it
// amounts to on its key; foreign reads other packages' variables.
func ForwardedScript(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr, fn *types.Func, f ScriptForward, foreign Foreign) (Access, bool) {
	c, ok := ForwardedRedis(fset, info, call, fn, f, foreign)
	if !ok {
		return Access{}, false
	}
	return redisAccess(info, call, c)
}

// ForwardedRedis is ForwardedScript's reading as the RedisCall it
// amounts to (see ScriptRedis); its Method is the helper's name.
func ForwardedRedis(fset *gotoken.FileSet, info *types.Info, call *ast.CallExpr, fn *types.Func, f ScriptForward, foreign Foreign) (RedisCall, bool) {
	arg := func(i int) ast.Expr {
		if i == -1 {
			return receiverOf(call)
		}
		if i >= 0 && i < len(call.Args) && !(call.Ellipsis.IsValid() && i == len(call.Args)-1 && i == fn.Signature().Params().Len()-1) {
			return call.Args[i]
		}
		return nil
	}
	b := bound{info: info, fset: fset, foreign: foreign}
	script := arg(f.Script)
	if script == nil {
		return RedisCall{}, false
	}
	var run scriptRun
	var ok bool
	switch {
	case f.Field != "":
		run.src, _, ok = b.fieldSource(script, f.Field, 0)
	case f.Text:
		run.src, ok = b.keptText(script, 0)
	default:
		run.src, _, ok = b.keptSource(script, 0)
	}
	if !ok {
		return RedisCall{}, false
	}
	if f.Keys >= 0 {
		if f.Keys >= len(call.Args) {
			return RedisCall{}, false
		}
		run.keys = sliceElems(info, call.Args[f.Keys])
	} else {
		for _, i := range f.KeyParams {
			k := arg(i)
			if k == nil {
				return RedisCall{}, false
			}
			run.keys = append(run.keys, k)
		}
	}
	if len(run.keys) == 0 {
		return RedisCall{}, false
	}
	for n, i := range f.Args {
		switch {
		case f.Spread && n == len(f.Args)-1:
			if call.Ellipsis.IsValid() && i < len(call.Args) {
				run.args = append(run.args, sliceElems(info, call.Args[i])...)
			} else if i < len(call.Args) {
				run.args = append(run.args, call.Args[i:]...)
			}
		case i >= 0:
			run.args = append(run.args, arg(i))
		default:
			run.args = append(run.args, nil)
		}
	}
	return scriptCommand(run, fn)
}

// fieldSource returns the source of the script the field named name of
// e's value holds: e's value followed back (a variable, a field, a
// helper of the package such as newScript(rdb, src), with its
// parameters bound, a pointer) to a struct literal that sets the field.
func (b bound) fieldSource(e ast.Expr, name string, depth int) (string, int, bool) {
	if depth > maxKeptDepth {
		return "", 0, false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == gotoken.AND {
			return b.fieldSource(x.X, name, depth+1)
		}
		return "", 0, false
	case *ast.CompositeLit:
		t := b.info.TypeOf(x)
		if t == nil {
			return "", 0, false
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return "", 0, false
		}
		for i := range st.NumFields() {
			if f := st.Field(i); f.Name() == name {
				if value := fieldIn(b.info, x, f); value != nil {
					return b.keptSource(value, depth+1)
				}
			}
		}
		return "", 0, false
	case *ast.CallExpr:
		fn, _ := typeutil.Callee(b.info, x).(*types.Func)
		if fn == nil {
			return "", 0, false
		}
		inner, values, ok := b.helper(x, fn, depth)
		if !ok {
			return "", 0, false
		}
		return oneOf(values, func(v ast.Expr) (string, int, bool) { return inner.fieldSource(v, name, depth+1) })
	}
	return oneOf(heldValues(b.info, e), func(v ast.Expr) (string, int, bool) { return b.fieldSource(v, name, depth+1) })
}
