package claim

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"

	"github.com/idemkit/idemkit/internal/audit/internal/directive"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// ORMWrite is a gorm call that changes rows that exist: Update, Updates,
// Save or Delete on *gorm.DB.
type ORMWrite struct {
	Method string
	// Model is the table given to Table, else the type given to Model,
	// else the type of the value saved, updated or deleted.
	Model string
	// Set are the columns or fields the call sets with the values it
	// gives them, when they are written in the call: Update("status",
	// "done"), Updates(map[string]any{...}), Updates(&Row{...}). Save's
	// are set on the value before the call, and are not here.
	Set map[string]ast.Expr
	// Value is the argument of Save or Updates.
	Value ast.Expr
}

// ORMUpdate reports whether call is a gorm Update, Updates, Save or
// Delete (match.ORM reads the model), with the values it sets.
func ORMUpdate(info *types.Info, call *ast.CallExpr) (ORMWrite, bool) {
	oc, ok := match.ORM(info, call)
	if !ok || oc.Op != match.ORMUpdate && oc.Op != match.ORMDelete || len(call.Args) == 0 {
		return ORMWrite{}, false
	}
	w := ORMWrite{Method: oc.Method, Model: oc.Model, Set: map[string]ast.Expr{}}
	switch oc.Method {
	case "Update", "UpdateColumn":
		if col, ok := match.ConstString(info, call.Args[0]); ok && len(call.Args) == 2 {
			w.Set[col] = call.Args[1]
		}
	case "Updates", "UpdateColumns":
		w.Value = call.Args[0]
		fields(info, call.Args[0], w.Set)
	default:
		w.Value = call.Args[0]
	}
	return w, true
}

// fields reads the columns a map or struct literal sets.
func fields(info *types.Info, e ast.Expr, into map[string]ast.Expr) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return
	}
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch k := kv.Key.(type) {
		case *ast.Ident:
			into[k.Name] = kv.Value
		default:
			if s, ok := match.ConstString(info, k); ok {
				into[s] = kv.Value
			}
		}
	}
}

// ModelName is the named type under pointers and slices, or "": the
// model a gorm or bun call is given.
func ModelName(t types.Type) string {
	for t != nil {
		switch u := types.Unalias(t).(type) {
		case *types.Named:
			return u.Obj().Name()
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		default:
			return ""
		}
	}
	return ""
}

// SameRecord reports whether a table and a gorm model name the same rows:
// idempotency_keys and IdempotencyKey do.
func SameRecord(a, b string) bool {
	return a != "" && match.RecordName(a) == match.RecordName(b)
}

// ormClaim reports whether call is a gorm Create of a row whose status
// says the work has begun, with an OnConflict clause or into a model named
// for keys (whose unique key refuses the second), and returns its model:
// the gorm spelling of an INSERT of an in-progress row.
func (s *scope) ormClaim(call *ast.CallExpr) (string, bool) {
	info := s.pass.TypesInfo
	oc, ok := match.ORM(info, call)
	if !ok || oc.Op != match.ORMCreate || oc.Model == "" || len(call.Args) == 0 ||
		!oc.OnConflict && !match.DedupName(oc.Model) && !match.KeyName(oc.Model) {
		return "", false
	}
	set := map[string]ast.Expr{}
	fields(info, call.Args[0], set)
	if len(set) == 0 {
		if v := s.varOf(unaddr(call.Args[0])); v != nil {
			s.assignedFields(v, set)
		}
	}
	for _, val := range set {
		if str, ok := match.ConstString(info, val); ok && directive.InProgress(str) {
			return oc.Model, true
		}
	}
	return "", false
}

func unaddr(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.AND {
		return u.X
	}
	return e
}

// assignedFields adds the fields a variable's literal sets where it is
// declared, and those set on it one by one (row.Status = "done"), in
// whichever function of the package holds it.
func (s *scope) assignedFields(v *types.Var, into map[string]ast.Expr) {
	info := s.pass.TypesInfo
	for _, f := range s.pass.Files {
		if v.Pos() < f.FileStart || f.FileEnd <= v.Pos() {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, l := range n.Lhs {
					if i >= len(n.Rhs) {
						break
					}
					switch l := l.(type) {
					case *ast.Ident:
						if info.ObjectOf(l) == v {
							fields(info, n.Rhs[i], into)
						}
					case *ast.SelectorExpr:
						if s.varOf(l.X) == v {
							into[l.Sel.Name] = n.Rhs[i]
						}
					}
				}
			case *ast.ValueSpec:
				for i, id := range n.Names {
					if info.Defs[id] == v && i < len(n.Values) {
						fields(info, n.Values[i], into)
					}
				}
			}
			return true
		})
	}
}

// AssignedFields is assignedFields for the checks: the fields set on the
// variable e names, or nothing when e is no variable.
func (r *Result) AssignedFields(e ast.Expr) map[string]ast.Expr {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]ast.Expr{}
	if v := r.scope.varOf(unaddr(e)); v != nil {
		r.scope.assignedFields(v, out)
	}
	return out
}

// StatusDone reports whether a set of columns gives a status or state
// column a value saying the work finished: "completed", "done",
// "succeeded", "processed".
func StatusDone(info *types.Info, set map[string]ast.Expr) bool {
	for col, val := range set {
		if !slices.ContainsFunc(match.Words(col), func(w string) bool { return w == "status" || w == "state" }) {
			continue
		}
		if str, ok := match.ConstString(info, val); ok && slices.ContainsFunc(match.Words(str), func(w string) bool { return slices.Contains(doneWords, w) }) {
			return true
		}
	}
	return false
}

// doneWords name a status saying the work behind a key finished.
var doneWords = []string{"completed", "complete", "done", "succeeded", "success", "processed", "finished"}
