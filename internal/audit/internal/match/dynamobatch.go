package match

import (
	"go/ast"
	"go/types"
	"regexp"

	"golang.org/x/tools/go/types/typeutil"
)

// txMembers are what the members of a types.TransactWriteItem do.
var txMembers = map[string]Op{"Put": OpWrite, "Update": OpUpdate, "Delete": OpDelete}

// dynamoBatch reads a DynamoDB call that writes many items: a
// TransactWriteItems, whose Put, Update and Delete items are read as the
// single-item calls are (a Put conditioned on attribute_not_exists
// claims, and since the transaction writes all of its items or none, the
// business write beside it is made under that claim; a
// TransactionCanceledException is the claim refused), and a
// BatchWriteItem, whose put requests write and whose delete requests
// delete, never conditionally. The items are read from the input's
// literal, also through local variables and the appends that build a
// slice of them.
func dynamoBatch(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Access, bool) {
	name := fn.Name()
	if name != "TransactWriteItems" && name != "BatchWriteItem" || len(call.Args) < 2 {
		return nil, false
	}
	if recv := fn.Signature().Recv(); recv == nil || !inPackage(fn, dynamoPath) && !types.IsInterface(recv.Type()) {
		return nil, false
	}
	if _, ok := readDynamoInput(info, call.Args[1], name+"Input"); !ok {
		return nil, false
	}
	lit := literalOf(info, call.Args[1], 0)
	if lit == nil {
		return nil, true
	}
	var out []Access
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch id, _ := kv.Key.(*ast.Ident); {
		case id == nil:
		case id.Name == "TransactItems":
			var parts []Access
			adds := false
			for _, item := range elements(info, kv.Value) {
				p, a := txItem(info, call, item)
				parts, adds = append(parts, p...), adds || a
			}
			for i := range parts {
				// A transaction that adds to a counter beside an
				// unconditioned put adds again when it runs again:
				// the put stands for both.
				parts[i].Appends = adds && parts[i].Op == OpWrite
			}
			out = append(out, parts...)
		case id.Name == "RequestItems":
			out = append(out, batchRequests(info, call, kv.Value)...)
		}
	}
	return out, true
}

// txItem reads one types.TransactWriteItem of a transaction, written
// out or returned by a helper of the package (o.claimItem(key)), whose
// arguments are then its keys; and whether it adds to an attribute (an
// Update's ADD clause, SET n = n + :v).
func txItem(info *types.Info, call *ast.CallExpr, item ast.Expr) ([]Access, bool) {
	lit := literalOf(info, item, 0)
	var args []ast.Expr
	if lit == nil {
		lit, args = returnedLiteral(info, item)
	}
	if lit == nil {
		return nil, false
	}
	var out []Access
	adds := false
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, _ := kv.Key.(*ast.Ident)
		if id == nil {
			continue
		}
		op, ok := txMembers[id.Name]
		member := literalOf(info, kv.Value, 0)
		if !ok || member == nil {
			continue
		}
		in := dynamoFields(info, member)
		adds = adds || op == OpUpdate && adding.MatchString(in.update)
		a := dynamoAccess(info, call, op, "TransactWriteItems "+id.Name, in)
		a.Part = kv.Value
		if args != nil {
			a.Part, a.Keys = item, args
		}
		a.written, _ = in.written(info, id.Name == "Put")
		out = append(out, a)
	}
	return out, adds
}

// adding matches an UpdateExpression that adds to what is stored.
var adding = regexp.MustCompile(`(?i)\bADD\s|([#\w.]+)\s*=\s*([#\w.]+)\s*[-+]`)

// returnedLiteral returns the composite literal a call of a function of
// the package returns, in its one return statement, and the call's
// arguments.
func returnedLiteral(info *types.Info, e ast.Expr) (*ast.CompositeLit, []ast.Expr) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return nil, nil
	}
	fn := typeutil.StaticCallee(info, call)
	if fn == nil {
		return nil, nil
	}
	var decl *ast.FuncDecl
	for _, n := range enclosing(info, fn.Pos()) {
		if d, ok := n.(*ast.FuncDecl); ok && d.Name.Pos() == fn.Pos() {
			decl = d
		}
	}
	if decl == nil || decl.Body == nil {
		return nil, nil
	}
	var rets []*ast.ReturnStmt
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		if r, ok := n.(*ast.ReturnStmt); ok {
			rets = append(rets, r)
		}
		return true
	})
	if len(rets) != 1 || len(rets[0].Results) != 1 {
		return nil, nil
	}
	lit := literalOf(info, rets[0].Results[0], 0)
	if lit == nil {
		return nil, nil
	}
	return lit, call.Args
}

// batchRequests reads a BatchWriteItem's RequestItems: a map from the
// table to its types.WriteRequest values.
func batchRequests(info *types.Info, call *ast.CallExpr, e ast.Expr) []Access {
	lit := literalOf(info, e, 0)
	if lit == nil {
		return nil
	}
	var out []Access
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		table := dynamoTable(info, kv.Key)
		for _, req := range elements(info, kv.Value) {
			rl := literalOf(info, req, 0)
			if rl == nil {
				continue
			}
			for _, elt := range rl.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				id, _ := kv.Key.(*ast.Ident)
				member := literalOf(info, kv.Value, 0)
				if id == nil || member == nil {
					continue
				}
				in := dynamoFields(info, member)
				in.table, in.cond = table, nil
				var a Access
				switch id.Name {
				case "PutRequest":
					a = dynamoAccess(info, call, OpWrite, "BatchWriteItem put", in)
					a.written, _ = in.written(info, true)
				case "DeleteRequest":
					a = dynamoAccess(info, call, OpDelete, "BatchWriteItem delete", in)
				default:
					continue
				}
				a.Part = kv.Value
				out = append(out, a)
			}
		}
	}
	return out
}

// elements returns the elements of a slice the code writes out: a
// literal's, or, for a local variable, those of the literal it is set to
// and of every append to it in its function.
func elements(info *types.Info, e ast.Expr) []ast.Expr {
	e = ast.Unparen(e)
	if lit, ok := e.(*ast.CompositeLit); ok {
		return lit.Elts
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	v, ok := info.Uses[id].(*types.Var)
	if !ok || v.Parent() == nil || v.Parent() == v.Pkg().Scope() {
		return nil
	}
	body := innermostFunc(enclosing(info, v.Pos()))
	if body == nil {
		return nil
	}
	var out []ast.Expr
	add := func(value ast.Expr) {
		switch x := ast.Unparen(value).(type) {
		case *ast.CompositeLit:
			out = append(out, x.Elts...)
		case *ast.CallExpr:
			if b, ok := info.Uses[identOf(x.Fun)].(*types.Builtin); ok && b.Name() == "append" && len(x.Args) > 1 && !x.Ellipsis.IsValid() {
				out = append(out, x.Args[1:]...)
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				return true
			}
			for i, lhs := range n.Lhs {
				if l, ok := ast.Unparen(lhs).(*ast.Ident); ok && info.ObjectOf(l) == v {
					add(n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if info.Defs[name] == v && i < len(n.Values) {
					add(n.Values[i])
				}
			}
		}
		return true
	})
	return out
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := ast.Unparen(e).(*ast.Ident)
	return id
}
