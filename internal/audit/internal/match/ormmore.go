package match

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// whereColumnsOf returns the columns a gorm Where call compares: those of
// a constant condition ("status = ? AND id = ?") and the keys of a map or
// the fields of a struct literal (Where(&Job{State: "new"})).
func whereColumnsOf(info *types.Info, where *ast.CallExpr) []string {
	if len(where.Args) == 0 {
		return nil
	}
	if cond, ok := ConstString(info, where.Args[0]); ok {
		return conditionColumns(cond)
	}
	return literalColumns(info, where.Args[0])
}

// literalColumns returns the constant keys of a map literal, or the fields
// of a struct literal as snake_case columns, under an &.
func literalColumns(info *types.Info, e ast.Expr) []string {
	cols, _ := literalValues(info, e)
	return cols
}

// literalValues returns literalColumns' columns with the value each is
// given.
func literalValues(info *types.Info, e ast.Expr) ([]string, []ast.Expr) {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok {
		e = u.X
	}
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return nil, nil
	}
	var cols []string
	var values []ast.Expr
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if s, ok := ConstString(info, kv.Key); ok {
			cols, values = append(cols, s), append(values, kv.Value)
		} else if id, ok := kv.Key.(*ast.Ident); ok {
			cols, values = append(cols, strings.Join(Words(id.Name), "_")), append(values, kv.Value)
		}
	}
	return cols, values
}

// ormGuarded reports whether a gorm update is a compare-and-set: its
// chain's Where compares a version or status column, or a column the
// update assigns (Update("state", "done") after Where("state = ?", "new")).
func ormGuarded(info *types.Info, call *ast.CallExpr, where []string) bool {
	assigned, _ := ORMAssigned(info, call)
	return slices.ContainsFunc(where, func(c string) bool {
		return versionColumn(c) || StatusColumn(c) || slices.Contains(assigned, c)
	})
}

// ORMAssigned returns the columns a gorm Update, UpdateColumn, Updates or
// UpdateColumns call assigns, with the value each is given:
// Update("status", v), or the keys of a map literal and the fields (as
// snake_case columns) of a struct literal handed to Updates. Save is
// not read: what it writes is the whole value.
func ORMAssigned(info *types.Info, call *ast.CallExpr) ([]string, []ast.Expr) {
	if len(call.Args) == 0 {
		return nil, nil
	}
	if col, ok := ConstString(info, call.Args[0]); ok {
		if len(call.Args) < 2 {
			return nil, nil
		}
		return []string{col}, call.Args[1:2] // Update("status", v), UpdateColumn
	}
	return literalValues(info, call.Args[0]) // Updates(map[string]any{...})
}

// StatusColumn reports whether a column holds a record's state: status,
// state, job_status.
func StatusColumn(name string) bool {
	ws := Words(name)
	return len(ws) > 0 && (ws[len(ws)-1] == "status" || ws[len(ws)-1] == "state")
}

// ormMore completes the Access of a gorm update or delete: the row is
// picked by the value saved or deleted, by the chain's Model and by its
// Where.
func ormMore(info *types.Info, call *ast.CallExpr, c ORMCall, a Access) (Access, bool) {
	switch c.Op {
	case ORMUpdate:
		a.Op = OpUpdate
		if c.Guarded {
			a.Op = OpGuarded
		}
		if c.Method == "Save" {
			a.Keys = call.Args[:min(len(call.Args), 1)]
		}
	case ORMDelete:
		a.Op = OpDelete
		a.Keys = call.Args
	default:
		return Access{}, false
	}
	for x := receiver(call); x != nil; x = receiver(x) {
		if link := method(info, x); link != nil && inPackage(link, gormPath) && link.Name() == "Model" && len(x.Args) > 0 {
			a.Keys = append(a.Keys, x.Args[0])
		}
	}
	return a, true
}

// gormRaw reads db.Raw(sql, args...).Scan(&v): the SQL is sent where the
// chain ends, into Scan's destination.
func gormRaw(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !inPackage(fn, gormPath) || fn.Name() != "Scan" {
		return Access{}, false
	}
	for x := receiver(call); x != nil; x = receiver(x) {
		link := method(info, x)
		if link == nil || !inPackage(link, gormPath) {
			break
		}
		if link.Name() == "Raw" && len(x.Args) > 0 {
			a, ok := sqlAccess(info, x, sqlCall(info, "Raw", x.Args[0]))
			if !ok {
				return Access{}, false
			}
			a.Call, a.Dest = call, call.Args
			return a, true
		}
	}
	return Access{}, false
}
