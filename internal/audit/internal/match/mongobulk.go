package match

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// mongoModels are the kinds of a bulk write's models, by the name of
// their constructor or type.
var mongoModels = map[string]Op{
	"InsertOneModel": OpWrite, "UpdateOneModel": OpUpdate, "UpdateManyModel": OpUpdate,
	"ReplaceOneModel": OpWrite, "DeleteOneModel": OpDelete, "DeleteManyModel": OpDelete,
}

// mongoBulk reads a MongoDB call that writes many documents: an
// InsertMany, one access for each document it is given, and a BulkWrite,
// one for each of its models (mongo.NewInsertOneModel().SetDocument(d),
// NewUpdateOneModel().SetFilter(f).SetUpdate(u).SetUpsert(true), a
// &mongo.ReplaceOneModel{...}), read as InsertOne, UpdateOne, ReplaceOne
// and DeleteOne are. An insert whose duplicate-key errors are read, the
// call's or a mongo.BulkWriteException's for each document, claims.
func mongoBulk(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Access, bool) {
	name := fn.Name()
	if name != "InsertMany" && name != "BulkWrite" || !mongoMethod(fn) || len(call.Args) < 2 {
		return nil, false
	}
	coll := mongoCollection(info, receiverOf(call), 0)
	base := Access{Record: "mongo " + RecordName(coll), Target: coll, Call: call}
	insert := func(what string, doc ast.Expr) Access {
		a := base
		a.Op, a.What, a.Appends, a.Part = OpWrite, what, true, doc
		a.Keys = docKeys(info, doc)
		if bulkDuplicateTested(info, call) {
			a.Op = OpClaim
		}
		a.written, _ = Document(info, doc)
		return a
	}
	items := elements(info, call.Args[1])
	if len(items) == 0 {
		if name == "InsertMany" {
			a := insert(name, call.Args[1])
			a.Part = nil
			return []Access{a}, true
		}
		return nil, true
	}
	var out []Access
	for _, item := range items {
		if name == "InsertMany" {
			out = append(out, insert(name, item))
			continue
		}
		m, ok := readModel(info, item)
		if !ok {
			continue
		}
		what := "BulkWrite " + strings.TrimSuffix(m.kind, "Model")
		if m.kind == "InsertOneModel" {
			if m.doc != nil {
				out = append(out, insert(what, m.doc))
			}
			continue
		}
		a := base
		a.Op, a.What, a.Part = mongoModels[m.kind], what, item
		filter, _ := Document(info, m.filter)
		a.Keys = filterKeys(filter, m.filter)
		if a.Op != OpDelete && m.doc != nil {
			a.Op = updateOp(info, filter, m.doc, m.upsert, a.Op)
			a.written, _ = updateFields(info, m.doc)
		}
		out = append(out, a)
	}
	return out, true
}

// model is a bulk write's model as the code builds it.
type model struct {
	kind        string // InsertOneModel, UpdateOneModel, ...
	filter, doc ast.Expr
	upsert      bool
}

// readModel reads a model built by its constructor and setters, or as a
// struct literal, also through a local variable.
func readModel(info *types.Info, e ast.Expr) (model, bool) {
	var m model
	for depth := 0; depth < 8; depth++ {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok {
			e = ast.Unparen(u.X)
		}
		switch x := e.(type) {
		case *ast.Ident:
			v, _, later, ok := definition(info, x)
			if !ok || len(later) > 0 {
				return m, false
			}
			e = v
		case *ast.CompositeLit:
			m.kind = typeName(info.TypeOf(x))
			if _, ok := mongoModels[m.kind]; !ok {
				return m, false
			}
			for _, elt := range x.Elts {
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					if id, ok := kv.Key.(*ast.Ident); ok {
						m.set(info, id.Name, kv.Value)
					}
				}
			}
			return m, true
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(info, x).(*types.Func)
			if !ok {
				return m, false
			}
			if kind, ok := strings.CutPrefix(fn.Name(), "New"); ok {
				if _, known := mongoModels[kind]; known && fn.Signature().Recv() == nil {
					m.kind = kind
					return m, true
				}
			}
			sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(fn.Name(), "Set") || len(x.Args) != 1 {
				return m, false
			}
			m.set(info, strings.TrimPrefix(fn.Name(), "Set"), x.Args[0])
			e = sel.X
		default:
			return m, false
		}
	}
	return m, false
}

// set records one field of a model, given by a setter or in a literal.
func (m *model) set(info *types.Info, field string, v ast.Expr) {
	switch field {
	case "Filter":
		if m.filter == nil {
			m.filter = v
		}
	case "Document", "Update", "Replacement":
		if m.doc == nil {
			m.doc = v
		}
	case "Upsert":
		tv := info.Types[v]
		m.upsert = tv.Value == nil || tv.Value.ExactString() == "true"
	}
}

// bulkDuplicateTested reports whether a bulk insert's duplicate-key
// errors are read: the call's error tested as InsertOne's is, or taken
// apart as a mongo.BulkWriteException whose write errors are then tested
// for a duplicate key (code 11000, IsDuplicateKeyError of one).
func bulkDuplicateTested(info *types.Info, call *ast.CallExpr) bool {
	if duplicateTested(info, call) {
		return true
	}
	body := innermostFunc(enclosing(info, call.Pos()))
	if body == nil {
		return false
	}
	bulk, dup := false, false
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil || n.End() <= call.End() {
			return n == nil || n.End() > call.End()
		}
		switch n := n.(type) {
		case ast.Expr:
			if typeName(info.TypeOf(n)) == "BulkWriteException" {
				bulk = true
			}
			if c, ok := n.(*ast.CallExpr); ok {
				if fn, ok := typeutil.Callee(info, c).(*types.Func); ok && duplicateName(fn.Name()) {
					dup = true
				}
			}
			if lit, ok := n.(*ast.BasicLit); ok && lit.Value == "11000" {
				dup = true
			}
		}
		return true
	})
	return bulk && dup
}
