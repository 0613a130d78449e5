package match

import (
	"go/ast"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// mongoPaths are the mongo packages of the official driver, v1 and v2.
var mongoPaths = []string{"go.mongodb.org/mongo-driver/mongo", "go.mongodb.org/mongo-driver/v2/mongo"}

// mongoOps are what a *mongo.Collection's methods do to the documents
// their filter picks, before the filter and the update are read.
var mongoOps = map[string]Op{
	"FindOne": OpRead, "Find": OpRead, "CountDocuments": OpRead,
	"InsertOne": OpWrite,
	"UpdateOne": OpUpdate, "UpdateByID": OpUpdate, "FindOneAndUpdate": OpUpdate,
	"ReplaceOne": OpWrite, "FindOneAndReplace": OpWrite,
	"DeleteOne": OpDelete, "DeleteMany": OpDelete, "FindOneAndDelete": OpDelete,
}

// mongo reads a call of a MongoDB collection's method, whose record is
// the collection ("mongo request" for db.Collection("requests") or a
// field named requests) and whose keys are the values its filter
// matches, or the _id of the document it inserts.
//
// An InsertOne whose error is then tested for a duplicate key
// (mongo.IsDuplicateKeyError, code 11000) is a claim: the unique index
// answers, atomically, whether the document was there. An update whose
// filter also compares a version, a field the update sets or a field by
// an operator ($ne, $exists, $lt) is guarded. An upsert writes; one that
// only $setOnInsert's, whose result says whether it inserted, claims.
func mongo(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	op, ok := mongoOps[fn.Name()]
	if !ok || !mongoMethod(fn) || len(call.Args) < 2 {
		return Access{}, false
	}
	coll := mongoCollection(info, receiverOf(call), 0)
	a := Access{Op: op, What: fn.Name(), Record: "mongo " + RecordName(coll), Target: coll, Call: call}
	switch fn.Name() {
	case "InsertOne":
		a.Appends = true
		a.Keys = docKeys(info, call.Args[1])
		if duplicateTested(info, call) {
			a.Op = OpClaim
		}
		return a, true
	case "UpdateByID":
		a.Keys = call.Args[1:2]
	default:
		filter, _ := Document(info, call.Args[1])
		a.Keys = filterKeys(filter, call.Args[1])
		if op == OpRead {
			a.Dest = scannedInto(info, call)
		}
		if op == OpRead || op == OpDelete || len(call.Args) < 3 {
			return a, true
		}
		a.Op = updateOp(info, filter, call.Args[2], upserts(info, call.Args[3:]), a.Op)
	}
	return a, true
}

// updateOp is what an update or replacement does, given its filter: it
// is guarded when the filter compares what it changes, a claim when it
// upserts and only sets on insert, a write when it upserts otherwise.
func updateOp(info *types.Info, filter []Field, e ast.Expr, upsert bool, op Op) Op {
	update, _ := Document(info, e)
	set := map[string]ast.Expr{}
	onInsertOnly := len(update) > 0
	for _, f := range update {
		if !strings.HasPrefix(f.Name, "$") { // a replacement document
			set[f.Name] = f.Value
			onInsertOnly = false
			continue
		}
		onInsertOnly = onInsertOnly && f.Name == "$setOnInsert"
		inner, _ := Document(info, f.Value)
		for _, g := range inner {
			set[g.Name] = g.Value
		}
	}
	switch {
	case slices.ContainsFunc(filter, func(f Field) bool { return guardField(info, f, set) }):
		return OpGuarded
	case upsert && onInsertOnly:
		return OpClaim
	case upsert:
		return OpWrite
	}
	return op
}

func mongoMethod(fn *types.Func) bool {
	recv := fn.Signature().Recv()
	if recv == nil || !slices.ContainsFunc(mongoPaths, func(p string) bool { return inPackage(fn, p) }) {
		return false
	}
	return typeName(recv.Type()) == "Collection"
}

// mongoCollection names the collection e holds: the constant given to
// Database.Collection, the field or variable it is kept in.
func mongoCollection(info *types.Info, e ast.Expr, depth int) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if fn, ok := typeutil.Callee(info, x).(*types.Func); ok && fn.Name() == "Collection" && len(x.Args) > 0 {
			if s, ok := ConstString(info, x.Args[0]); ok {
				return s
			}
		}
	case *ast.Ident:
		if v, _, later, ok := definition(info, x); ok && len(later) == 0 && depth < 4 {
			if name := mongoCollection(info, v, depth+1); name != "" {
				return name
			}
		}
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return types.ExprString(e)
}

// Field is one field a document names: a BSON document's element, a
// struct field by its bson name, a DynamoDB attribute.
type Field struct {
	Name  string
	Value ast.Expr // nil when the value is not written out
}

// Document reads a BSON document written out in the code: a bson.D or
// primitive.D of elements, a bson.M or other map with constant keys, a
// struct literal (its fields by their bson tags, else their lowercased
// names), or a local variable set once to one of them.
func Document(info *types.Info, e ast.Expr) ([]Field, bool) {
	return document(info, e, 0)
}

func document(info *types.Info, e ast.Expr, depth int) ([]Field, bool) {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	switch x := e.(type) {
	case *ast.Ident:
		if v, _, later, ok := definition(info, x); ok && len(later) == 0 && depth < 4 {
			return document(info, v, depth+1)
		}
		return nil, false
	case *ast.CompositeLit:
		t := info.TypeOf(x)
		if t == nil {
			return nil, false
		}
		var out []Field
		switch u := t.Underlying().(type) {
		case *types.Slice: // bson.D: {{Key: "_id", Value: id}} or {{"_id", id}}
			for _, elt := range x.Elts {
				lit, ok := ast.Unparen(elt).(*ast.CompositeLit)
				if !ok {
					return nil, false
				}
				var f Field
				for i, part := range lit.Elts {
					switch part := part.(type) {
					case *ast.KeyValueExpr:
						if id, ok := part.Key.(*ast.Ident); ok && id.Name == "Key" {
							f.Name, _ = ConstString(info, part.Value)
						} else if ok && id.Name == "Value" {
							f.Value = part.Value
						}
					default:
						if i == 0 {
							f.Name, _ = ConstString(info, part)
						} else {
							f.Value = part
						}
					}
				}
				if f.Name == "" {
					return nil, false
				}
				out = append(out, f)
			}
		case *types.Map:
			for _, elt := range x.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					return nil, false
				}
				name, ok := ConstString(info, kv.Key)
				if !ok {
					return nil, false
				}
				out = append(out, Field{Name: name, Value: kv.Value})
			}
		case *types.Struct:
			for i, elt := range x.Elts {
				var name string
				var value ast.Expr
				if kv, ok := elt.(*ast.KeyValueExpr); ok {
					id, _ := kv.Key.(*ast.Ident)
					if id == nil {
						return nil, false
					}
					name, value = id.Name, kv.Value
				} else if i < u.NumFields() {
					name, value = u.Field(i).Name(), elt
				}
				for j := range u.NumFields() {
					if u.Field(j).Name() == name {
						name = bsonName(u.Field(j).Name(), u.Tag(j))
					}
				}
				out = append(out, Field{Name: name, Value: value})
			}
		default:
			return nil, false
		}
		return out, true
	}
	return nil, false
}

// bsonName is the name the driver stores a struct field under: its bson
// tag's name, else the field's name in lower case.
func bsonName(field, tag string) string {
	if name, _, _ := strings.Cut(reflect.StructTag(tag).Get("bson"), ","); name != "" && name != "-" {
		return name
	}
	return strings.ToLower(field)
}

// docKeys returns the keys of an inserted document: its _id, else every
// value it writes; a document not written out is its own key.
func docKeys(info *types.Info, doc ast.Expr) []ast.Expr {
	fields, ok := Document(info, doc)
	if !ok {
		return []ast.Expr{doc}
	}
	for _, f := range fields {
		if f.Name == "_id" && f.Value != nil {
			return []ast.Expr{f.Value}
		}
	}
	var out []ast.Expr
	for _, f := range fields {
		if f.Value != nil {
			out = append(out, f.Value)
		}
	}
	return out
}

// filterKeys returns the values a filter matches by equality, which pick
// the document: {_id: id, tenant: t}; a filter not written out is its own
// key.
func filterKeys(filter []Field, e ast.Expr) []ast.Expr {
	if filter == nil {
		return []ast.Expr{e}
	}
	var out []ast.Expr
	for _, f := range filter {
		if f.Value == nil || strings.HasPrefix(f.Name, "$") {
			continue
		}
		if lit, ok := ast.Unparen(f.Value).(*ast.CompositeLit); ok && len(lit.Elts) > 0 {
			continue // {$ne: v}: a condition, not the document's key
		}
		out = append(out, f.Value)
	}
	return out
}

// guardOperators compare a field with what a writer expects of it.
var guardOperators = []string{"$ne", "$exists", "$lt", "$lte", "$gt", "$gte", "$nin", "$eq"}

// guardField reports whether a filter field makes an update a
// compare-and-set: a version, a field the update sets to something else
// (state: "pending" while it $sets state), or a field compared by an
// operator.
func guardField(info *types.Info, f Field, set map[string]ast.Expr) bool {
	if v, ok := set[f.Name]; versionColumn(f.Name) || ok && (v == nil || f.Value == nil || types.ExprString(v) != types.ExprString(f.Value)) {
		return true
	}
	ops, ok := Document(info, f.Value)
	return ok && slices.ContainsFunc(ops, func(o Field) bool { return slices.Contains(guardOperators, o.Name) })
}

// upserts reports whether a write's options set upsert: v2's
// options.UpdateOne().SetUpsert(true), v1's options.Update().SetUpsert(true),
// a struct with Upsert set, also through a local variable.
func upserts(info *types.Info, opts []ast.Expr) bool {
	found := false
	for _, o := range opts {
		var visit func(n ast.Node) bool
		depth := 0
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr); ok && sel.Sel.Name == "SetUpsert" && len(n.Args) == 1 {
					if tv := info.Types[n.Args[0]]; tv.Value == nil || tv.Value.ExactString() == "true" {
						found = true
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Upsert" {
					found = true
				}
			case *ast.Ident:
				if v, _, _, ok := definition(info, n); ok && depth < 4 {
					depth++
					ast.Inspect(v, visit)
					depth--
				}
			}
			return !found
		}
		ast.Inspect(o, visit)
	}
	return found
}

// duplicateTested reports whether the error of call is tested, later in
// its function, for a duplicate key: passed to a predicate named for it
// (mongo.IsDuplicateKeyError, isDup), or the function compares a
// server error code with 11000.
func duplicateTested(info *types.Info, call *ast.CallExpr) bool {
	return errorTested(info, call, duplicateName)
}

// errorTested reports whether the error of call is passed, later in its
// function, to a predicate whose name answers named, or compared with
// MongoDB's duplicate-key code.
func errorTested(info *types.Info, call *ast.CallExpr, named func(string) bool) bool {
	path := enclosing(info, call.Pos())
	body := innermostFunc(path)
	errVar := resultError(info, call, path)
	if body == nil || errVar == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil || n.End() <= call.End() {
			return !found && (n == nil || n.End() > call.End())
		}
		switch n := n.(type) {
		case *ast.IfStmt:
			// if mongo.IsDuplicateKeyError(err) { return nil }, where
			// the function also answers nil when it inserted: the test
			// swallows the duplicate, and no caller can tell the two.
			if swallowed(body, n) {
				return false
			}
		case *ast.CallExpr:
			fn, ok := typeutil.Callee(info, n).(*types.Func)
			if ok && named(fn.Name()) && slices.ContainsFunc(n.Args, func(a ast.Expr) bool { return UsesVar(info, a, errVar) }) {
				found = true
			}
		case *ast.BasicLit:
			if n.Value == "11000" || strings.Contains(n.Value, "E11000") {
				found = true
			}
		}
		return !found
	})
	return found
}

// swallowed reports whether the if's body only returns what the
// function returns at its end, on the way that did not fail: the test
// in its condition changes nothing a caller sees.
func swallowed(fn ast.Node, ifs *ast.IfStmt) bool {
	if len(ifs.Body.List) != 1 || ifs.Else != nil {
		return false
	}
	ret, ok := ifs.Body.List[0].(*ast.ReturnStmt)
	if !ok {
		return false
	}
	var list []ast.Stmt
	switch f := fn.(type) {
	case *ast.FuncDecl:
		list = f.Body.List
	case *ast.FuncLit:
		list = f.Body.List
	}
	if len(list) == 0 {
		return false
	}
	last, ok := list[len(list)-1].(*ast.ReturnStmt)
	if !ok || last == ret || len(last.Results) != len(ret.Results) {
		return false
	}
	for i := range ret.Results {
		if types.ExprString(ret.Results[i]) != types.ExprString(last.Results[i]) {
			return false
		}
	}
	return true
}

func duplicateName(name string) bool {
	ws := Words(name)
	return slices.Contains(ws, "duplicate") || slices.Contains(ws, "dup") || slices.Contains(ws, "dupe")
}

// resultError returns the variable call's error result is assigned to,
// or nil: the err of _, err := coll.InsertOne(ctx, doc).
func resultError(info *types.Info, call *ast.CallExpr, path []ast.Node) *types.Var {
	for i, n := range path {
		if n != call {
			continue
		}
		if i+1 >= len(path) {
			return nil
		}
		as, ok := path[i+1].(*ast.AssignStmt)
		if !ok || len(as.Rhs) != 1 || ast.Unparen(as.Rhs[0]) != call {
			return nil
		}
		id, ok := ast.Unparen(as.Lhs[len(as.Lhs)-1]).(*ast.Ident)
		if !ok {
			return nil
		}
		v, _ := info.ObjectOf(id).(*types.Var)
		return v
	}
	return nil
}

// UsesVar reports whether e uses the variable v.
func UsesVar(info *types.Info, e ast.Expr, v *types.Var) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] == v {
			found = true
		}
		return !found
	})
	return found
}

// MongoWritten returns the fields a MongoDB write stores: an inserted or
// replacing document's, or those an update's operators ($set,
// $setOnInsert, $push) name.
func mongoWritten(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Field, bool) {
	if !mongoMethod(fn) {
		return nil, false
	}
	switch fn.Name() {
	case "InsertOne":
		if len(call.Args) > 1 {
			return Document(info, call.Args[1])
		}
	case "ReplaceOne", "FindOneAndReplace", "UpdateOne", "UpdateByID", "FindOneAndUpdate":
		if len(call.Args) < 3 {
			return nil, false
		}
		return updateFields(info, call.Args[2])
	}
	return nil, false
}

// updateFields returns the fields an update's operators or a replacement
// document name.
func updateFields(info *types.Info, e ast.Expr) ([]Field, bool) {
	doc, ok := Document(info, e)
	if !ok {
		return nil, false
	}
	var out []Field
	for _, f := range doc {
		if !strings.HasPrefix(f.Name, "$") {
			out = append(out, f)
			continue
		}
		inner, ok := Document(info, f.Value)
		if !ok {
			return nil, false
		}
		out = append(out, inner...)
	}
	return out, true
}
