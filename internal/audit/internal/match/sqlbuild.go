package match

import (
	"go/ast"
	"go/constant"
	gotoken "go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// builtQuery reads SQL text that is not one constant (see SQLCall.Built)
// and returns its statement and the variables spliced into it. It is
// false when no constant part names a statement.
func builtQuery(info *types.Info, e ast.Expr) (Statement, []ast.Expr, bool) {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if v, index, later, ok := definition(info, id); ok && index == 0 && len(later) == 0 {
			if call, ok := ast.Unparen(v).(*ast.CallExpr); ok {
				if b, ok := builderText(info, call); ok {
					return b.statement(), b.keys, true
				}
			}
		}
	}
	var sk skeleton
	sk.read(info, e, maxSkeletonDepth)
	st := ParseSQL(sk.text.String())
	return st, sk.holes, st.Verb != VerbOther
}

// maxSkeletonDepth bounds how many variables and calls the reading of one
// query passes through.
const maxSkeletonDepth = 8

// hole stands in the skeleton for what is not constant. It is neither a
// word nor a placeholder, so that no table or column is read from it.
const hole = "\x00"

// skeleton is SQL text assembled from its constant parts, with a hole for
// each part that varies.
type skeleton struct {
	text  strings.Builder
	holes []ast.Expr
}

// constant appends constant text.
func (sk *skeleton) constant(s string) { sk.text.WriteString(s) }

// vary appends a hole for e. A word the hole cuts (FROM events_ + month)
// goes with it: it names no table.
func (sk *skeleton) vary(e ast.Expr) {
	s := sk.text.String()
	if t := strings.TrimRightFunc(s, func(r rune) bool { return isWordPart(r) }); len(t) < len(s) {
		sk.text.Reset()
		sk.text.WriteString(t)
	}
	sk.text.WriteString(hole)
	sk.holes = append(sk.holes, e)
}

// read appends what e holds: a constant, a concatenation, a fmt.Sprintf,
// a call that passes a query through (Rebind, sqlx.In), a local variable
// with its later += and Rebind assignments, a strings.Builder's String.
func (sk *skeleton) read(info *types.Info, e ast.Expr, depth int) {
	if s, ok := ConstString(info, e); ok {
		sk.constant(s)
		return
	}
	if depth == 0 {
		sk.vary(e)
		return
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if e.Op == gotoken.ADD {
			sk.read(info, e.X, depth-1)
			sk.read(info, e.Y, depth-1)
			return
		}
	case *ast.CallExpr:
		if q, ok := passesQuery(info, e); ok {
			sk.read(info, q, depth-1)
			return
		}
		if sk.builder(info, e, depth) {
			return
		}
		if fn := typeutil.StaticCallee(info, e); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "fmt" && fn.Name() == "Sprintf" &&
			len(e.Args) > 0 && !e.Ellipsis.IsValid() {
			if format, ok := ConstString(info, e.Args[0]); ok {
				sk.sprintf(info, format, e.Args[1:])
				return
			}
		}
	case *ast.Ident:
		if sk.variable(info, e, depth) {
			return
		}
	}
	sk.vary(e)
}

// variable reads a local variable's value, with what is later appended
// to it; false when it is assigned anything else.
func (sk *skeleton) variable(info *types.Info, id *ast.Ident, depth int) bool {
	value, index, later, ok := definition(info, id)
	if !ok || index > 0 { // _, q := f(): only sqlx.In and builders give a query, and first
		return false
	}
	for _, a := range later {
		switch {
		case a.Tok == gotoken.ADD_ASSIGN:
		case a.Tok == gotoken.ASSIGN && passesVariable(info, a.Value, id):
		default:
			return false
		}
	}
	sk.read(info, value, depth-1)
	for _, a := range later {
		if a.Tok == gotoken.ADD_ASSIGN {
			sk.read(info, a.Value, depth-1)
		}
	}
	return true
}

// passesVariable reports whether e hands the variable id's own query back
// to it: q = db.Rebind(q), q, args, err = sqlx.In(q, args...).
func passesVariable(info *types.Info, e ast.Expr, id *ast.Ident) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	q, ok := passesQuery(info, call)
	arg, isIdent := ast.Unparen(q).(*ast.Ident)
	return ok && isIdent && info.Uses[arg] == info.Uses[id]
}

// passesQuery returns the query argument of a call that returns the same
// statement: a Rebind method (sqlx's DB and Tx, or any with its shape,
// string to string), sqlx.Rebind, sqlx.In, sqlx.Named and BindNamed.
func passesQuery(info *types.Info, call *ast.CallExpr) (ast.Expr, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	if fn == nil || len(call.Args) == 0 {
		return nil, false
	}
	sig := fn.Signature()
	switch {
	case fn.Name() == "Rebind" && sig.Params().Len() >= 1 && sig.Results().Len() == 1 && isString(sig.Results().At(0).Type()):
		return call.Args[len(call.Args)-1], true // db.Rebind(q), sqlx.Rebind(bindType, q)
	case (fn.Name() == "In" || fn.Name() == "Named" || fn.Name() == "BindNamed") && inPackage(fn, sqlxPath):
		return call.Args[0], true
	}
	return nil, false
}

// sprintf appends a fmt.Sprintf's text, each verb replaced by its
// argument when constant, else by a hole.
func (sk *skeleton) sprintf(info *types.Info, format string, args []ast.Expr) {
	next := 0
	for {
		i := strings.IndexByte(format, '%')
		if i < 0 {
			break
		}
		sk.constant(format[:i])
		verb := ""
		if loc := sprintfShape.FindStringIndex(format[i:]); loc != nil && loc[0] == 0 {
			verb = format[i : i+loc[1]]
		}
		if strings.HasPrefix(format[i:], "%%") {
			verb = "%%"
		}
		if verb == "" { // an explicit argument index or a malformed verb
			sk.constant(format[i:])
			return
		}
		format = format[i+len(verb):]
		switch {
		case verb == "%%":
			sk.constant("%")
		case next >= len(args):
			sk.constant(verb)
		default:
			arg := args[next]
			next++
			if tv := info.Types[arg]; tv.Value != nil {
				s := tv.Value.ExactString()
				if tv.Value.Kind() == constant.String {
					s = constant.StringVal(tv.Value)
				}
				sk.constant(s)
				continue
			}
			sk.vary(arg)
		}
	}
	sk.constant(format)
}

// builder reads sb.String() of a strings.Builder or bytes.Buffer declared
// in the function: what its WriteString, WriteByte and WriteRune calls
// and the fmt.Fprintf calls into it wrote before, in source order.
func (sk *skeleton) builder(info *types.Info, call *ast.CallExpr, depth int) bool {
	fn := method(info, call)
	if fn == nil || fn.Name() != "String" || !textBuffer(fn.Signature().Recv().Type()) {
		return false
	}
	sb, ok := bufferVar(info, receiverOf(call))
	if !ok {
		return false
	}
	body := innermostFunc(enclosing(info, sb.Pos()))
	if body == nil {
		return false
	}
	ast.Inspect(body, func(n ast.Node) bool {
		w, ok := n.(*ast.CallExpr)
		if !ok || w.Pos() >= call.Pos() {
			return true
		}
		if f := typeutil.StaticCallee(info, w); f != nil && f.Pkg() != nil && f.Pkg().Path() == "fmt" && f.Name() == "Fprintf" && len(w.Args) > 1 {
			if v, ok := bufferVar(info, w.Args[0]); ok && v == sb && !w.Ellipsis.IsValid() {
				if format, ok := ConstString(info, w.Args[1]); ok {
					sk.sprintf(info, format, w.Args[2:])
				}
			}
			return true
		}
		m := method(info, w)
		if m == nil || !textBuffer(m.Signature().Recv().Type()) || (m.Name() != "WriteString" && m.Name() != "WriteByte" && m.Name() != "WriteRune") {
			return true
		}
		if v, ok := bufferVar(info, receiverOf(w)); ok && v == sb {
			sk.read(info, w.Args[0], depth-1)
		}
		return true
	})
	return true
}

// textBuffer reports whether t is (a pointer to) strings.Builder or
// bytes.Buffer.
func textBuffer(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
	case "strings.Builder", "bytes.Buffer":
		return true
	}
	return false
}

// bufferVar returns the variable e names, through an &.
func bufferVar(info *types.Info, e ast.Expr) (*types.Var, bool) {
	if e == nil {
		return nil, false
	}
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == gotoken.AND {
		e = u.X
	}
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return nil, false
	}
	v, ok := info.Uses[id].(*types.Var)
	return v, ok
}
