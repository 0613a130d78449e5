package match

import (
	"go/ast"
	"go/types"
)

// ORMOp is what a gorm call does.
type ORMOp uint8

// The gorm calls the checks tell apart.
const (
	ORMRead          ORMOp = iota + 1 // First, Take, Last, Find, Count: reads whether and what rows exist
	ORMCreate                         // Create, CreateInBatches: an INSERT
	ORMFirstOrCreate                  // FirstOrCreate: a SELECT then an INSERT, not atomic
	ORMUpdate                         // Save, Update, Updates, UpdateColumn(s): an UPDATE (Save inserts a row without a primary key)
	ORMDelete                         // Delete: a DELETE
)

// ORMCall is a gorm.io/gorm call on *gorm.DB.
type ORMCall struct {
	Op     ORMOp
	Method string
	// Model names what the call reads or writes: the table given to
	// Table, else the type given to Model, else the destination's type
	// (through pointers and slices); "" when none is known.
	Model string
	// OnConflict marks a Create whose chain holds
	// Clauses(clause.OnConflict{...}): an INSERT ... ON CONFLICT.
	OnConflict bool
	// Locking marks a read whose chain holds Clauses(clause.Locking{...}):
	// a SELECT ... FOR UPDATE.
	Locking bool
	// Guarded marks an update whose chain's Where compares a version or
	// status column, or the column it updates: a compare-and-set.
	Guarded bool
	// Where are the columns the chain's Where calls compare, read from
	// their constant conditions ("status = ?") and map or struct literals.
	Where []string
}

const gormPath = "gorm.io/gorm"

var ormMethods = map[string]ORMOp{
	"First": ORMRead, "Take": ORMRead, "Last": ORMRead, "Find": ORMRead, "Count": ORMRead,
	"Create": ORMCreate, "CreateInBatches": ORMCreate,
	"FirstOrCreate": ORMFirstOrCreate,
	"FirstOrInit":   ORMRead,
	"Save":          ORMUpdate, "Update": ORMUpdate, "Updates": ORMUpdate, "UpdateColumn": ORMUpdate, "UpdateColumns": ORMUpdate,
	"Delete": ORMDelete,
}

// ORM reports whether call is a gorm read, create, FirstOrCreate, update
// or delete, and reads its chain
// (db.Table(...).Clauses(...).Where(...).Create(&v)) for the model and the
// clauses that change its meaning.
func ORM(info *types.Info, call *ast.CallExpr) (ORMCall, bool) {
	fn := method(info, call)
	if fn == nil || !inPackage(fn, gormPath) {
		return ORMCall{}, false
	}
	op, ok := ormMethods[fn.Name()]
	if !ok {
		return ORMCall{}, false
	}
	c := ORMCall{Op: op, Method: fn.Name()}
	if fn.Name() != "Count" && len(call.Args) > 0 {
		c.Model = typeName(info.TypeOf(call.Args[0]))
	}
	var table, model string
	for x := receiver(call); x != nil; x = receiver(x) {
		link := method(info, x)
		if link == nil || !inPackage(link, gormPath) {
			break
		}
		switch link.Name() {
		case "Table":
			if len(x.Args) > 0 && table == "" {
				table, _ = ConstString(info, x.Args[0])
			}
		case "Model":
			if len(x.Args) > 0 && model == "" {
				model = typeName(info.TypeOf(x.Args[0]))
			}
		case "Clauses":
			for _, a := range x.Args {
				c.OnConflict = c.OnConflict || isClause(info.TypeOf(a), "OnConflict")
				c.Locking = c.Locking || isClause(info.TypeOf(a), "Locking")
			}
		case "Where":
			c.Where = append(c.Where, whereColumnsOf(info, x)...)
		}
	}
	if c.Op == ORMUpdate {
		c.Guarded = ormGuarded(info, call, c.Where)
	}
	switch {
	case table != "":
		c.Model = table
	case model != "":
		c.Model = model
	}
	return c, true
}

// isClause reports whether t is gorm.io/gorm/clause's type name.
func isClause(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == gormPath+"/clause"
}

// receiver returns the call a method call is made on, as in x().m(), or
// nil.
func receiver(call *ast.CallExpr) *ast.CallExpr {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	x, _ := ast.Unparen(sel.X).(*ast.CallExpr)
	return x
}

// typeName returns the name of the named type under pointers, slices and
// arrays, or "".
// TypeParamPrefix starts the model name of a record a generic function
// reads or writes through its type parameter: "typeparam_T". Where the
// function is called, effect puts the type argument's name in its place.
const TypeParamPrefix = "typeparam_"

func typeName(t types.Type) string {
	for t != nil {
		switch u := types.Unalias(t).(type) {
		case *types.Named:
			return u.Obj().Name()
		case *types.TypeParam:
			// a generic repository's T: the call site's instance names it
			// (see TypeParamModel)
			return TypeParamPrefix + u.Obj().Name()
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		case *types.Array:
			t = u.Elem()
		default:
			return ""
		}
	}
	return ""
}
