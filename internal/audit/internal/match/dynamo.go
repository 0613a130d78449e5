package match

import (
	"go/ast"
	"go/types"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

const dynamoPath = "github.com/aws/aws-sdk-go-v2/service/dynamodb"

// dynamoOps are what DynamoDB's item calls do, before their conditions
// are read.
var dynamoOps = map[string]Op{"GetItem": OpRead, "PutItem": OpWrite, "UpdateItem": OpUpdate, "DeleteItem": OpDelete}

// dynamoInput is a DynamoDB call's input, as its composite literal
// writes it.
type dynamoInput struct {
	table     string
	key, item ast.Expr // the Key and Item maps
	// cond is the ConditionExpression; condText its constant text.
	cond     ast.Expr
	condText string
	update   string // the constant UpdateExpression
	names    map[string]string
	values   ast.Expr // ExpressionAttributeValues
}

// dynamo reads a DynamoDB item call, GetItem, PutItem, UpdateItem or
// DeleteItem, made on a *dynamodb.Client or on an interface of the
// service's own (a DynamoDBAPI), given its *dynamodb.XxxInput. Its record
// is the table ("dynamo dedup" for TableName: aws.String("dedup") or a
// field named dedup) and its keys are the values of its Key map, or of
// the Item's attributes, the one its condition names first.
//
// A PutItem or UpdateItem conditioned on attribute_not_exists, in its
// ConditionExpression text or through the expression builder, is a
// claim: it writes the item only when it is absent, and a
// ConditionalCheckFailedException says it was there. Another condition
// makes it a guarded update; a PutItem without one overwrites.
func dynamo(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	op, ok := dynamoOps[fn.Name()]
	if !ok || len(call.Args) < 2 {
		return Access{}, false
	}
	if recv := fn.Signature().Recv(); recv == nil || !inPackage(fn, dynamoPath) && !types.IsInterface(recv.Type()) {
		return Access{}, false
	}
	in, ok := readDynamoInput(info, call.Args[1], fn.Name()+"Input")
	if !ok {
		return Access{}, false
	}
	return dynamoAccess(info, call, op, fn.Name(), in), true
}

// dynamoAccess is the access of one DynamoDB write or read, given its
// input: a call's, or one item of a transaction.
func dynamoAccess(info *types.Info, call *ast.CallExpr, op Op, what string, in dynamoInput) Access {
	a := Access{Op: op, What: what, Record: "dynamo " + RecordName(in.table), Target: in.table, Call: call}
	if op == OpWrite {
		a.Keys = itemKeys(info, in)
	} else {
		a.Keys = mapValues(info, in.key, 0)
	}
	if op == OpWrite || op == OpUpdate {
		switch {
		case in.cond == nil:
		case in.attributeNotExists(info, call):
			a.Op = OpClaim
		default:
			a.Op = OpGuarded
		}
	}
	return a
}

// readDynamoInput reads the input argument of a DynamoDB call: a
// &dynamodb.<want>{...} literal, also through a local variable.
func readDynamoInput(info *types.Info, e ast.Expr, want string) (dynamoInput, bool) {
	var in dynamoInput
	t := info.TypeOf(e)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Name() != want || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != dynamoPath {
		return in, false
	}
	if lit := literalOf(info, e, 0); lit != nil {
		in = dynamoFields(info, lit)
	}
	return in, true
}

// dynamoFields reads the fields DynamoDB's inputs and a transaction's
// items (types.Put, Update, Delete) share: the table, key or item, the
// condition and update expressions and their names and values.
func dynamoFields(info *types.Info, lit *ast.CompositeLit) dynamoInput {
	var in dynamoInput
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, _ := kv.Key.(*ast.Ident)
		if id == nil {
			continue
		}
		switch id.Name {
		case "TableName":
			in.table = dynamoTable(info, kv.Value)
		case "Key":
			in.key = kv.Value
		case "Item":
			in.item = kv.Value
		case "ConditionExpression":
			in.cond = kv.Value
			in.condText, _ = awsString(info, kv.Value)
		case "UpdateExpression":
			in.update, _ = awsString(info, kv.Value)
		case "ExpressionAttributeNames":
			in.names = map[string]string{}
			if m, ok := ast.Unparen(kv.Value).(*ast.CompositeLit); ok {
				for _, elt := range m.Elts {
					if kv, ok := elt.(*ast.KeyValueExpr); ok {
						k, ok1 := ConstString(info, kv.Key)
						v, ok2 := ConstString(info, kv.Value)
						if ok1 && ok2 {
							in.names[k] = v
						}
					}
				}
			}
		case "ExpressionAttributeValues":
			in.values = kv.Value
		}
	}
	return in
}

// literalOf returns the composite literal e is, takes the address of, or
// is a local variable set once to.
func literalOf(info *types.Info, e ast.Expr, depth int) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok {
		e = ast.Unparen(u.X)
	}
	switch x := e.(type) {
	case *ast.CompositeLit:
		return x
	case *ast.Ident:
		if v, _, later, ok := definition(info, x); ok && len(later) == 0 && depth < 4 {
			return literalOf(info, v, depth+1)
		}
	}
	return nil
}

// awsString returns the constant behind aws.String("..."), or a constant.
func awsString(info *types.Info, e ast.Expr) (string, bool) {
	if s, ok := ConstString(info, e); ok {
		return s, true
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 {
		return ConstString(info, call.Args[0])
	}
	return "", false
}

// dynamoTable names a table as the code gives it: the constant, or the
// field or variable holding it (aws.String(s.table) is "table").
func dynamoTable(info *types.Info, e ast.Expr) string {
	if s, ok := awsString(info, e); ok {
		return s
	}
	if call, ok := ast.Unparen(e).(*ast.CallExpr); ok && len(call.Args) == 1 {
		e = call.Args[0]
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return types.ExprString(e)
}

// mapValues returns the values of a map literal (a Key map), also through
// a local variable; a map not written out is its own key.
func mapValues(info *types.Info, e ast.Expr, depth int) []ast.Expr {
	if e == nil {
		return nil
	}
	lit := literalOf(info, e, depth)
	if lit == nil {
		return []ast.Expr{unmarshalled(info, e)}
	}
	var out []ast.Expr
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			out = append(out, kv.Value)
		}
	}
	return out
}

// unmarshalled returns the value an attribute map was marshalled from
// (item, _ := attributevalue.MarshalMap(rec): rec), or e itself.
func unmarshalled(info *types.Info, e ast.Expr) ast.Expr {
	id, ok := ast.Unparen(e).(*ast.Ident)
	if !ok {
		return e
	}
	v, _, _, ok := definition(info, id)
	if !ok {
		return e
	}
	if call, ok := ast.Unparen(v).(*ast.CallExpr); ok && len(call.Args) == 1 {
		if fn, ok := typeutil.Callee(info, call).(*types.Func); ok && strings.HasPrefix(fn.Name(), "Marshal") {
			return call.Args[0]
		}
	}
	return e
}

// itemKeys returns the values of a written item's attributes, the key
// first: the attribute its condition requires absent, else one named as
// a key (pk, id, idempotency_key).
func itemKeys(info *types.Info, in dynamoInput) []ast.Expr {
	lit := literalOf(info, in.item, 0)
	if lit == nil {
		if in.item == nil {
			return nil
		}
		return []ast.Expr{unmarshalled(info, in.item)}
	}
	first := ""
	if m := notExists.FindStringSubmatch(in.condText); m != nil {
		first = in.name(m[1])
	}
	var key, rest []ast.Expr
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		name, _ := ConstString(info, kv.Key)
		if key == nil && (name == first || first == "" && keyAttribute(name)) {
			key = append(key, kv.Value)
		} else {
			rest = append(rest, kv.Value)
		}
	}
	return append(key, rest...)
}

// keyAttribute reports a name a table's partition key is given.
func keyAttribute(name string) bool {
	ws := Words(name)
	return KeyName(name) || len(ws) > 0 && slices.Contains([]string{"pk", "id", "key"}, ws[len(ws)-1])
}

// name resolves an expression attribute name (#pk) to the attribute.
func (in dynamoInput) name(n string) string {
	if v, ok := in.names[n]; ok {
		return v
	}
	return n
}

// notExists matches attribute_not_exists(pk) and captures the attribute.
var notExists = regexp.MustCompile(`(?i)attribute_not_exists\s*\(\s*([#\w.]+)\s*\)`)

// attributeNotExists reports whether a write's condition lets it create
// only an absent item: attribute_not_exists in its text, or, when the
// text is built, a call of the expression builder's AttributeNotExists in
// the function.
func (in dynamoInput) attributeNotExists(info *types.Info, call *ast.CallExpr) bool {
	if in.condText != "" {
		return notExists.MatchString(in.condText)
	}
	body := innermostFunc(enclosing(info, call.Pos()))
	found := false
	if body != nil {
		ast.Inspect(body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if fn, ok := typeutil.Callee(info, c).(*types.Func); ok && fn.Name() == "AttributeNotExists" {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// updateSet matches the assignments of an UpdateExpression's SET clause
// and the attributes of its ADD clause.
var (
	updateClause = regexp.MustCompile(`(?i)\b(SET|ADD|REMOVE|DELETE)\s`)
	setTarget    = regexp.MustCompile(`([#\w.]+)\s*=\s*([^,]+)`)
)

// dynamoWritten returns the attributes a DynamoDB write stores: a put
// item's, or those an update's SET clause assigns, with their values where
// ExpressionAttributeValues gives them.
func dynamoWritten(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Field, bool) {
	if fn.Name() != "PutItem" && fn.Name() != "UpdateItem" || len(call.Args) < 2 {
		return nil, false
	}
	if _, ok := dynamo(info, call, fn); !ok {
		return nil, false
	}
	in, _ := readDynamoInput(info, call.Args[1], fn.Name()+"Input")
	return in.written(info, fn.Name() == "PutItem")
}

// written returns the attributes a put (its item's) or an update (its SET
// and ADD clauses') stores.
func (in dynamoInput) written(info *types.Info, put bool) ([]Field, bool) {
	if put {
		lit := literalOf(info, in.item, 0)
		if lit == nil {
			return nil, false
		}
		var out []Field
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				name, ok := ConstString(info, kv.Key)
				if !ok {
					return nil, false
				}
				out = append(out, Field{Name: name, Value: kv.Value})
			}
		}
		return out, true
	}
	if in.update == "" {
		return nil, false
	}
	values := map[string]ast.Expr{}
	if lit := literalOf(info, in.values, 0); lit != nil {
		for _, elt := range lit.Elts {
			if kv, ok := elt.(*ast.KeyValueExpr); ok {
				if name, ok := ConstString(info, kv.Key); ok {
					values[name] = kv.Value
				}
			}
		}
	}
	var out []Field
	idx := updateClause.FindAllStringSubmatchIndex(in.update, -1)
	for i, m := range idx {
		end := len(in.update)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		clause := in.update[m[1]:end]
		switch strings.ToUpper(in.update[m[2]:m[3]]) {
		case "SET":
			for _, a := range setTarget.FindAllStringSubmatch(clause, -1) {
				out = append(out, Field{Name: in.name(a[1]), Value: values[strings.TrimSpace(a[2])]})
			}
		case "ADD":
			for part := range strings.SplitSeq(clause, ",") {
				if fs := strings.Fields(part); len(fs) == 2 {
					out = append(out, Field{Name: in.name(fs[0]), Value: values[fs[1]]})
				}
			}
		}
	}
	return out, len(out) > 0
}

// Written returns the fields a document store's write stores, by name,
// with their values where the code writes them out: a MongoDB document's
// or update's fields, a DynamoDB item's attributes or an
// UpdateExpression's SET targets, the fields an ent create or update
// sets (SetStatus, SetResponseBody). A status written alone, with no
// response beside it, is told by them.
func Written(info *types.Info, call *ast.CallExpr) ([]Field, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok {
		return nil, false
	}
	fn = fn.Origin()
	if a, ok := batch(info, call, fn); ok {
		return a.written, len(a.written) > 0
	}
	if f, ok := mongoWritten(info, call, fn); ok {
		return f, true
	}
	if f, ok := entWritten(info, call, fn); ok {
		return f, true
	}
	return dynamoWritten(info, call, fn)
}
