package attemptkey

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"
)

// minted is what a constructor does when it returns a record with a fresh
// ID of its own (newJob returning Job{ID: uuid.NewString(), ...}): the ID
// is no sink where it is made, since the record is not sent there, but a
// caller that sends what it returns sends a new ID on each call.
type minted struct {
	pos   token.Pos // where the ID is made; invalid for another package's constructor
	what  string    // uuid.NewString at jobs.go:12
	field string    // the record's field that holds it: ID
}

// mints returns what a function returns with a fresh ID of its own: a
// record of a type a relay or a retry may send (sentRecord) whose own ID,
// or whose event's or message's ID, is set to a fresh value on every path
// that returns one, in a literal (return &Job{ID: uuid.NewString()}), in
// fields set on a variable returned (j := new(Job); j.ID = ...; return j),
// or by another constructor it returns the result of. A record that
// carries a key besides its ID (IdempotencyKey) is deduplicated by that.
// Constructors of other packages tell through their facts.
func (c *checker) mints(fn *types.Func) *minted {
	if m, done := c.minted[fn]; done {
		return m
	}
	decl := c.decls[fn]
	if decl == nil {
		if k := c.fact(fn); k != nil && k.Mints != "" {
			return &minted{what: k.Mints, field: k.MintsField}
		}
		return nil
	}
	c.minted[fn] = nil // recursion adds nothing
	res := fn.Signature().Results()
	if res.Len() == 0 || !sentRecord(res.At(0).Type()) {
		return nil
	}
	info := c.pass.TypesInfo
	f := c.flow(decl.Body, nil)
	var out *minted
	all := true
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if !all || len(n.Results) == 0 {
				all = false
				return false
			}
			e := n.Results[0]
			if tv, ok := info.Types[e]; ok && (tv.IsNil() || tv.Value != nil) {
				return false // nil, err
			}
			m := c.mintedBy(decl, f, e)
			if m == nil {
				all = false
			} else if out == nil {
				out = m
			}
		}
		return true
	})
	if !all {
		out = nil
	}
	c.minted[fn] = out
	return out
}

// mintedBy returns the fresh ID of the record e returns in decl: a
// literal, a variable holding one, or the result of another constructor.
func (c *checker) mintedBy(decl *ast.FuncDecl, f *flow, e ast.Expr) *minted {
	info := c.pass.TypesInfo
	e = ast.Unparen(e)
	if call, ok := e.(*ast.CallExpr); ok {
		callee := typeutil.StaticCallee(info, call)
		if callee == nil {
			return nil
		}
		m := c.mints(callee.Origin())
		if m == nil {
			return nil
		}
		return &minted{pos: m.pos, what: fmt.Sprintf("%s (%s)", callee.Name(), m.what), field: m.field}
	}
	typ := typeName(info.TypeOf(e))
	fields := map[string]ast.Expr{}
	keyed := false
	if lit := recordLit(e); lit != nil {
		keyed = keyedLit(info, lit)
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					fields[id.Name] = kv.Value
				}
			}
		}
	} else if id, ok := e.(*ast.Ident); ok {
		v, _ := info.Uses[id].(*types.Var)
		if v == nil {
			return nil
		}
		ast.Inspect(decl.Body, func(n ast.Node) bool {
			a, ok := n.(*ast.AssignStmt)
			if !ok || len(a.Lhs) != len(a.Rhs) {
				return true
			}
			for i, l := range a.Lhs {
				switch l := ast.Unparen(l).(type) {
				case *ast.Ident: // j := Job{...}, j := &Job{...}
					if info.ObjectOf(l) != v {
						continue
					}
					if lit := recordLit(a.Rhs[i]); lit != nil {
						keyed = keyed || keyedLit(info, lit)
						for _, elt := range lit.Elts {
							if kv, ok := elt.(*ast.KeyValueExpr); ok {
								if k, ok := kv.Key.(*ast.Ident); ok {
									fields[k.Name] = kv.Value
								}
							}
						}
					}
				case *ast.SelectorExpr: // j.ID = uuid.NewString()
					if x, ok := ast.Unparen(l.X).(*ast.Ident); ok && info.Uses[x] == v {
						fields[l.Sel.Name] = a.Rhs[i]
						keyed = keyed || dedupField(l.Sel.Name)
					}
				}
			}
			return true
		})
	}
	for name, value := range fields {
		if !sentID(typ, name, keyed) {
			continue
		}
		if o := f.origin(value); o.fresh() && c.scopeAt(decl, o.pos) == nil {
			return &minted{pos: o.pos, what: fmt.Sprintf("%s at %s", o.what, c.where(o.pos)), field: name}
		}
	}
	return nil
}

// mintedSent reports a call, in a retry or a relay, of a constructor that
// returns a record with a fresh ID (newJob) when the function sends what
// it returns (q.Enqueue(ctx, j), or what it is marshalled into) without
// giving it an ID or a key of its own first (j.ID = row.JobID).
func (c *checker) mintedSent(decl *ast.FuncDecl, call *ast.CallExpr, sends func() *sent) bool {
	callee := typeutil.StaticCallee(c.pass.TypesInfo, call)
	if callee == nil {
		return false
	}
	m := c.mints(callee.Origin())
	if m == nil {
		return false
	}
	sc := c.scopeAt(decl, call.Pos())
	if sc == nil || !allowed([]kind{retry, relay}, sc.kind) {
		return false
	}
	s := sends()
	by := s.calls[call]
	if by == "" || c.renamed(decl, call, m.field, s) {
		return false
	}
	typ := typeName(c.pass.TypesInfo.TypeOf(call))
	if res, ok := c.pass.TypesInfo.TypeOf(call).(*types.Tuple); ok && res.Len() > 0 {
		typ = typeName(res.At(0).Type())
	}
	c.reportAttempt(call, sc, fmt.Sprintf("made by %s (%s)", callee.Name(), m.what),
		fmt.Sprintf("reaches the %s of a %s sent by %s", m.field, typ, by), m.pos)
	return true
}

// renamed reports whether the variable a constructor's call is assigned
// to is given the minted field, or a key besides, after it: j :=
// newJob(...); j.ID = row.JobID.
func (c *checker) renamed(decl *ast.FuncDecl, call *ast.CallExpr, field string, s *sent) bool {
	info := c.pass.TypesInfo
	var held *types.Var
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok && len(a.Rhs) == 1 && ast.Unparen(a.Rhs[0]) == call {
			if id, ok := a.Lhs[0].(*ast.Ident); ok {
				held, _ = info.ObjectOf(id).(*types.Var)
			}
		}
		return held == nil
	})
	if held == nil {
		return false
	}
	if s.keyed[held] {
		return true
	}
	found := false
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		a, ok := n.(*ast.AssignStmt)
		if !ok {
			return !found
		}
		for _, l := range a.Lhs {
			if sel, ok := ast.Unparen(l).(*ast.SelectorExpr); ok && sel.Sel.Name == field {
				if x, ok := ast.Unparen(sel.X).(*ast.Ident); ok && info.Uses[x] == held {
					found = true
				}
			}
		}
		return !found
	})
	return found
}
