package match

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// built is what a query builder's chain says of the statement it sends:
// bun, squirrel and goqu name the table, the compared columns and the
// conflict clause in calls rather than in SQL text.
type built struct {
	st   Statement
	keys []ast.Expr // the values the statement is picked by
	dest []ast.Expr // where a read stores what it found
}

// where records a condition: the columns its constant text compares and
// the values given for its placeholders.
func (b *built) where(info *types.Info, cond ast.Expr, args []ast.Expr) {
	if s, ok := ConstString(info, cond); ok {
		b.st.Columns = append(b.st.Columns, conditionColumns(s)...)
	}
	b.keys = append(b.keys, args...)
}

// conditionColumns returns the columns a WHERE condition compares:
// "status = ? AND id = ?" compares status and id.
func conditionColumns(cond string) []string {
	return ParseSQL("SELECT 1 FROM t WHERE " + cond).Columns
}

// statement returns the statement the chain builds, judged as ParseSQL
// judges text: an UPDATE comparing a version column or a column it
// assigns is guarded.
func (b built) statement() Statement {
	st := b.st
	if st.Verb == Update {
		st.Guarded = slices.ContainsFunc(st.Columns, func(c string) bool {
			return versionColumn(c) || slices.Contains(st.Assigned, c)
		})
	}
	return st
}

// access returns the Access of the chain that call ends.
func (b built) access(info *types.Info, call *ast.CallExpr, method string) (Access, bool) {
	return sqlAccess(info, call, SQLCall{Method: method, Built: true, built: b.statement(), Keys: b.keys, Dest: b.dest})
}

// builderText reads the statement of a builder's ToSql (squirrel) or
// ToSQL (goqu) call, whose text a variable hands to Exec or Query.
func builderText(info *types.Info, call *ast.CallExpr) (built, bool) {
	fn, _ := typeutil.Callee(info, call).(*types.Func)
	switch {
	case fn == nil:
		return built{}, false
	case fn.Name() == "ToSql":
		return squirrelChain(info, call, fn.Origin())
	case fn.Name() == "ToSQL":
		return goquChain(info, call, fn.Origin())
	}
	return built{}, false
}

// constTable returns the table a constant names ("events", "events AS e",
// "public.events"), or "".
func constTable(info *types.Info, e ast.Expr) string {
	s, ok := ConstString(info, e)
	if !ok {
		return ""
	}
	t, _ := tableName(tokenize(s), 0)
	return t
}

// conflictClause reports whether constant text is an INSERT's conflict
// clause: bun's On("CONFLICT (k) DO NOTHING"), squirrel's
// Suffix("ON CONFLICT ..."), MySQL's ON DUPLICATE KEY.
func conflictClause(info *types.Info, e ast.Expr) bool {
	s, ok := ConstString(info, e)
	u := strings.ToUpper(s)
	return ok && (strings.Contains(u, "CONFLICT") || strings.Contains(u, "DUPLICATE KEY"))
}

const bunPath = "github.com/uptrace/bun"

// bunVerbs are bun's query types and the statements they build.
var bunVerbs = map[string]Verb{"SelectQuery": Select, "InsertQuery": Insert, "UpdateQuery": Update, "DeleteQuery": Delete}

// bunEnds are the methods that send a bun query.
var bunEnds = map[string]bool{"Exec": true, "Scan": true, "Exists": true, "Count": true, "ScanAndCount": true}

// bunQuery reads a bun chain where it is sent:
// db.NewSelect().Model(&v).Where("k = ?", k).Exists(ctx),
// NewInsert().Model(&v).On("CONFLICT (k) DO NOTHING").Exec(ctx), NewUpdate,
// NewDelete, and NewRaw(sql, args...).Scan(ctx, &v). The record is the
// Table given, else the Model's type.
func bunQuery(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if !inPackage(fn, bunPath) || !bunEnds[fn.Name()] || fn.Signature().Recv() == nil || len(call.Args) == 0 {
		return Access{}, false
	}
	kind := typeName(fn.Signature().Recv().Type())
	var b built
	var model ast.Expr
	pk := false
	for x := receiver(call); x != nil; x = receiver(x) {
		link := method(info, x)
		if link == nil || !inPackage(link, bunPath) {
			break
		}
		switch name := link.Name(); {
		case name == "NewRaw" && kind == "RawQuery" && len(x.Args) > 0:
			a, ok := sqlAccess(info, x, sqlCall(info, name, x.Args[0]))
			if !ok {
				return Access{}, false
			}
			a.Call, a.Dest = call, call.Args[1:]
			return a, true
		case len(x.Args) == 0:
			pk = pk || name == "WherePK"
			if name == "Ignore" {
				b.st.Conditional = true
			}
		case name == "Model":
			model = x.Args[0]
		case name == "Table" || name == "ModelTableExpr":
			b.st.Table = constTable(info, x.Args[0])
		case name == "Where" || name == "WhereOr":
			b.where(info, x.Args[0], x.Args[1:])
		case name == "WherePK":
			pk = true
		case name == "On":
			b.st.Conditional = b.st.Conditional || conflictClause(info, x.Args[0])
		case name == "For":
			b.st.ForUpdate = true // FOR UPDATE, FOR SHARE, FOR NO KEY UPDATE
		case name == "Set":
			if s, ok := ConstString(info, x.Args[0]); ok {
				b.st.Assigned = append(b.st.Assigned, assigned(tokenize(s))...)
			}
			b.keys = append(b.keys, x.Args[1:]...)
		}
	}
	verb, ok := bunVerbs[kind]
	if !ok {
		return Access{}, false
	}
	b.st.Verb = verb
	if b.st.Table == "" && model != nil {
		b.st.Table = typeName(info.TypeOf(model))
	}
	if model != nil && (pk || verb == Insert) {
		b.keys = append(b.keys, model)
	}
	if verb == Select && fn.Name() != "Exists" && fn.Name() != "Count" {
		b.dest = call.Args[1:]
		if len(b.dest) == 0 && model != nil {
			b.dest = []ast.Expr{model}
		}
	}
	return b.access(info, call, fn.Name())
}
