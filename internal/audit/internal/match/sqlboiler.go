package match

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// sqlboiler generates its models into the service's own module, in a
// package of any name, so they are known by their shape, as ent's are: a
// package that imports sqlboiler's boil and queries and declares the
// NewQuery every generated package has. Their statements are assembled
// at run time from cached column lists, so their bodies say nothing a
// reader of SQL text can follow; each call is read where it is made.
const sqlboilerBoil = "/boil"

// sqlboilerGenerated reports whether pkg is a package sqlboiler
// generated (v3, v4, or a fork of it).
func sqlboilerGenerated(pkg *types.Package) bool {
	if pkg == nil {
		return false
	}
	boil, queries := false, false
	for _, imp := range pkg.Imports() {
		p := imp.Path()
		if !strings.Contains(p, "/sqlboiler") {
			continue
		}
		boil = boil || strings.HasSuffix(p, sqlboilerBoil)
		queries = queries || strings.HasSuffix(p, "/queries")
	}
	if !boil || !queries {
		return false
	}
	_, ok := pkg.Scope().Lookup("NewQuery").(*types.Func)
	return ok
}

// sqlboilerExecutor reports whether t is boil's Executor or
// ContextExecutor, which every generated method that sends a statement
// takes.
func sqlboilerExecutor(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || !strings.Contains(n.Obj().Pkg().Path(), "/sqlboiler") {
		return false
	}
	return n.Obj().Name() == "ContextExecutor" || n.Obj().Name() == "Executor"
}

// sqlboilerQueryEnds are the methods of a generated query (Payments(mods...))
// that send it.
var sqlboilerQueryEnds = map[string]Op{
	"One": OpRead, "All": OpRead, "Exists": OpRead, "Count": OpRead,
	"UpdateAll": OpUpdate, "DeleteAll": OpDelete,
}

// sqlboiler reads a call of what sqlboiler generated: a model's Insert,
// Upsert, Update, Delete, Reload or Exists (o.Insert(ctx, db,
// boil.Infer())), the package's FindPayment and PaymentExists given the
// primary key, and a query's One, All, Exists, Count, UpdateAll or
// DeleteAll (models.Payments(qm.Where("key = ?", k)).Exists(ctx, db)).
// The record is the model's table ("sql payment"); the keys are the model
// written (its fields, as a gorm model's), the primary key given, or the
// values of the query's Where mods. An Upsert that does nothing on
// conflict (updateOnConflict false) inserts only an absent row; an
// UpdateAll whose Where compares a column it sets is guarded.
func sqlboiler(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if a, ok := sqlboilerRaw(info, call, fn); ok {
		return a, true
	}
	if !sqlboilerGenerated(fn.Pkg()) || !slices.ContainsFunc(slices.Collect(fn.Signature().Params().Variables()), func(p *types.Var) bool { return sqlboilerExecutor(p.Type()) }) {
		return Access{}, false
	}
	sel, _ := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	recv := fn.Signature().Recv()
	if recv == nil { // FindPayment(ctx, exec, id), PaymentExists(ctx, exec, id)
		model, op := "", OpRead
		if m, ok := strings.CutPrefix(fn.Name(), "Find"); ok {
			model = m
		} else if m, ok := strings.CutSuffix(fn.Name(), "Exists"); ok {
			model = m
		}
		model = strings.TrimSuffix(model, "G")
		if model == "" || len(call.Args) < 3 {
			return Access{}, false
		}
		a := Access{Op: op, What: fn.Name(), Record: "sql " + RecordName(model), Target: model, Call: call}
		for _, arg := range call.Args[2:] {
			if !isStringSlice(info.TypeOf(arg)) {
				a.Keys = append(a.Keys, arg)
			}
		}
		return a, true
	}
	model := typeName(recv.Type())
	if q, ok := strings.CutSuffix(model, "Query"); ok && q != "" {
		return sqlboilerQuery(info, call, fn, sel)
	}
	if sel == nil {
		return Access{}, false
	}
	a := Access{What: fn.Name(), Record: "sql " + RecordName(model), Target: model, Call: call, Keys: []ast.Expr{sel.X}}
	if id, ok := ast.Unparen(sel.X).(*ast.Ident); ok {
		// o loaded by FindPayment(ctx, db, id) or a query's One: the
		// row it was read by
		if v, _, _, ok := definition(info, id); ok {
			if read, ok := ast.Unparen(v).(*ast.CallExpr); ok && read != call {
				if rf, _ := typeutil.Callee(info, read).(*types.Func); rf != nil {
					if ra, ok := sqlboiler(info, read, rf.Origin()); ok && ra.Op == OpRead {
						a.Keys = append(a.Keys, ra.Keys...)
					}
				}
			}
		}
	}
	switch fn.Name() {
	case "Insert":
		a.Op, a.What, a.Appends = OpWrite, "INSERT", true
		if uniqueTested(info, call) {
			// the unique key answers whether the row was there: a claim,
			// of the status the model is made with
			a.Op = OpClaim
			if lit := literalOf(info, sel.X, 0); lit != nil {
				a.Keys = append(a.Keys, lit)
			}
		}
	case "Upsert":
		a.Op = OpWrite
		if len(call.Args) > 2 {
			if v := info.Types[call.Args[2]].Value; v != nil && v.String() == "false" {
				a.Op, a.Appends = OpClaim, true // ON CONFLICT DO NOTHING
			}
		}
	case "Update":
		a.Op, a.What = OpUpdate, "UPDATE"
	case "Delete":
		a.Op = OpDelete
	case "Reload", "Exists":
		a.Op = OpRead
	default:
		return Access{}, false
	}
	return a, true
}

// sqlboilerRawEnds are the methods of sqlboiler's queries.Query that send
// it.
var sqlboilerRawEnds = map[string]bool{
	"Bind": true, "BindG": true, "BindP": true, "Exec": true, "ExecContext": true, "ExecP": true,
	"QueryRow": true, "QueryRowContext": true, "Query": true, "QueryContext": true,
}

// sqlboilerRaw reads SQL text sqlboiler's queries.Raw was given, where
// the query is sent: queries.Raw("UPDATE ... WHERE id = $1", id).ExecContext(ctx, db),
// or Bind(ctx, db, &v), which reads into v.
func sqlboilerRaw(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !sqlboilerRawEnds[fn.Name()] || fn.Signature().Recv() == nil || fn.Pkg() == nil ||
		!strings.Contains(fn.Pkg().Path(), "/sqlboiler") || !strings.HasSuffix(fn.Pkg().Path(), "/queries") {
		return Access{}, false
	}
	raw := receiver(call)
	if raw == nil {
		return Access{}, false
	}
	rf, _ := typeutil.Callee(info, raw).(*types.Func)
	if rf == nil || rf.Name() != "Raw" || rf.Pkg() != fn.Pkg() || len(raw.Args) == 0 {
		return Access{}, false
	}
	a, ok := sqlAccess(info, raw, sqlCall(info, fn.Name(), raw.Args[0]))
	if !ok {
		return Access{}, false
	}
	a.Call = call
	if strings.HasPrefix(fn.Name(), "Bind") && len(call.Args) > 0 {
		a.Dest = call.Args[len(call.Args)-1:]
	}
	return a, true
}

// sqlboilerQuery reads a generated query sent by one of
// sqlboilerQueryEnds: models.Payments(qm.Where("key = ?", k)).One(ctx, db).
func sqlboilerQuery(info *types.Info, call *ast.CallExpr, fn *types.Func, sel *ast.SelectorExpr) (Access, bool) {
	op, ok := sqlboilerQueryEnds[fn.Name()]
	if !ok || sel == nil {
		return Access{}, false
	}
	root, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	if !ok {
		return Access{}, false
	}
	rootFn, _ := typeutil.Callee(info, root).(*types.Func)
	if rootFn == nil || rootFn.Signature().Recv() != nil || !sqlboilerGenerated(rootFn.Pkg()) {
		return Access{}, false
	}
	b := built{st: Statement{Table: rootFn.Name()}}
	for _, mod := range root.Args {
		m, ok := ast.Unparen(mod).(*ast.CallExpr)
		if !ok {
			continue
		}
		mf, _ := typeutil.Callee(info, m).(*types.Func)
		if mf == nil || mf.Pkg() == nil || !strings.Contains(mf.Pkg().Path(), "/sqlboiler") || len(m.Args) == 0 {
			continue
		}
		switch mf.Name() {
		case "Where", "And", "Or", "WhereIn":
			b.where(info, m.Args[0], m.Args[1:])
		case "For":
			if s, ok := ConstString(info, m.Args[0]); ok && strings.Contains(strings.ToUpper(s), "UPDATE") {
				b.st.ForUpdate = true
			}
		}
	}
	a := Access{Op: op, What: fn.Name(), Record: "sql " + RecordName(rootFn.Name()), Target: rootFn.Name(), Call: call, Keys: b.keys, ForUpdate: b.st.ForUpdate}
	if op == OpUpdate && len(call.Args) > 2 {
		if lit := literalOf(info, call.Args[2], 0); lit != nil { // models.M{"status": "paid"}
			for _, elt := range lit.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if col, ok := ConstString(info, kv.Key); ok {
						b.st.Assigned = append(b.st.Assigned, col)
					}
				}
			}
		}
		b.st.Verb = Update
		a.What = "UPDATE"
		if b.statement().Guarded {
			a.Op = OpGuarded
		}
	}
	return a, true
}

// uniqueTested reports whether the error of an INSERT is tested, later
// in its function, for a unique violation: by a predicate named for a
// duplicate, a unique key or a constraint (isUniqueViolation,
// IsDuplicateKey), or against the code of one, Postgres's 23505 (as
// pgerrcode.UniqueViolation or the literal) or MySQL's 1062.
func uniqueTested(info *types.Info, call *ast.CallExpr) bool {
	if constraintTested(info, call) {
		return true
	}
	path := enclosing(info, call.Pos())
	body := innermostFunc(path)
	if body == nil || resultError(info, call, path) == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= call.End() {
			return !found && (n == nil || n.End() > call.End())
		}
		switch n := n.(type) {
		case *ast.BasicLit:
			found = strings.Contains(n.Value, "23505") || n.Value == "1062"
		case *ast.Ident:
			found = n.Name == "UniqueViolation" || n.Name == "ER_DUP_ENTRY" || n.Name == "ErrDupEntry"
		}
		return !found
	})
	return found
}

func isStringSlice(t types.Type) bool {
	s, ok := t.(*types.Slice)
	if t != nil && !ok {
		s, ok = t.Underlying().(*types.Slice)
	}
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.String
}
