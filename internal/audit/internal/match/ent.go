package match

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// entPath is the ent framework's module. ent generates its builders into
// the service's own module, in a package of any name and path, so they are
// known by their shape: a type of a package that imports entPath, named
// for an entity and the builder's kind.
const entPath = "entgo.io/ent"

// entKinds are the suffixes of the builder types ent generates for an
// entity (PaymentQuery, PaymentUpdateOne, PaymentClient), longest first.
var entKinds = []string{"UpdateOne", "DeleteOne", "CreateBulk", "UpsertOne", "UpsertBulk", "Client", "Query", "Create", "Update", "Delete"}

// entEnds are the methods that send a builder's statement, by the
// builder's kind, with what they do before the chain is read.
var entEnds = map[string]map[string]Op{
	"Client": {"Get": OpRead, "GetX": OpRead},
	"Query": {
		"Only": OpRead, "OnlyX": OpRead, "OnlyID": OpRead, "OnlyIDX": OpRead, "First": OpRead, "FirstX": OpRead,
		"FirstID": OpRead, "FirstIDX": OpRead, "Exist": OpRead, "ExistX": OpRead, "Count": OpRead, "CountX": OpRead,
		"All": OpRead, "AllX": OpRead, "IDs": OpRead, "IDsX": OpRead,
	},
	"Create":     {"Save": OpWrite, "SaveX": OpWrite, "Exec": OpWrite, "ExecX": OpWrite},
	"CreateBulk": {"Save": OpWrite, "SaveX": OpWrite, "Exec": OpWrite, "ExecX": OpWrite},
	"UpsertOne":  {"Exec": OpWrite, "ExecX": OpWrite, "ID": OpWrite, "IDX": OpWrite},
	"UpsertBulk": {"Exec": OpWrite, "ExecX": OpWrite},
	"Update":     {"Save": OpUpdate, "SaveX": OpUpdate, "Exec": OpUpdate, "ExecX": OpUpdate},
	"UpdateOne":  {"Save": OpUpdate, "SaveX": OpUpdate, "Exec": OpUpdate, "ExecX": OpUpdate},
	"Delete":     {"Exec": OpDelete, "ExecX": OpDelete},
	"DeleteOne":  {"Exec": OpDelete, "ExecX": OpDelete},
}

// entBuilder reads a type ent generated for an entity: the entity's name
// and the builder's kind ("Payment", "Query" for *ent.PaymentQuery).
func entBuilder(t types.Type) (entity, kind string, ok bool) {
	if p, isPtr := types.Unalias(t).(*types.Pointer); isPtr {
		t = p.Elem()
	}
	n, isNamed := types.Unalias(t).(*types.Named)
	if !isNamed || !entGenerated(n.Obj().Pkg()) {
		return "", "", false
	}
	name := n.Obj().Name()
	for _, k := range entKinds {
		if e, found := strings.CutSuffix(name, k); found && e != "" {
			return e, k, true
		}
	}
	return "", "", false
}

// entGenerated reports whether pkg is one ent generated: it imports the
// framework and declares what ent generates in every project, either the
// client package's error helpers (IsConstraintError, NotFoundError) or an
// entity package's Label and FieldID. A service package that imports
// ent's dialect for its own queries is neither.
func entGenerated(pkg *types.Package) bool {
	if pkg == nil || !slices.ContainsFunc(pkg.Imports(), func(imp *types.Package) bool {
		return imp.Path() == entPath || strings.HasPrefix(imp.Path(), entPath+"/")
	}) {
		return false
	}
	declares := func(name string, want func(types.Object) bool) bool {
		obj := pkg.Scope().Lookup(name)
		return obj != nil && want(obj)
	}
	isFunc := func(o types.Object) bool { _, ok := o.(*types.Func); return ok }
	isType := func(o types.Object) bool { _, ok := o.(*types.TypeName); return ok }
	isConst := func(o types.Object) bool { _, ok := o.(*types.Const); return ok }
	return declares("IsConstraintError", isFunc) && declares("NotFoundError", isType) ||
		declares("Label", isConst) && declares("FieldID", isConst)
}

// entLink is one method call of a builder chain, from its root on.
type entLink struct {
	name string
	kind string // the kind of the builder it is called on, or "" for an entity or a client
	call *ast.CallExpr
}

// entChain is what a builder chain says up to the call that sends it:
// its method calls from the root (client.Payment, tx.Payment, an entity)
// on.
type entChain struct {
	links []entLink
}

// ent reads a call that sends a builder ent generated: a query's Only,
// First, Exist, Count or All, a client's Get, a create's, update's or
// delete's Save or Exec. The record is the entity ("ent payment") and the
// keys are the values its Where predicates compare for equality
// (payment.IdempotencyKey(k), payment.IDEQ(id)), the id given to Get,
// UpdateOneID or DeleteOneID, the entity updated or deleted, or for a
// create the values it sets, its ID and key fields first.
//
// A create whose error is then tested for a constraint (ent's
// IsConstraintError, a duplicate) is a claim: the unique index answers,
// atomically, whether the row was there; so is an upsert that does
// nothing on conflict (DoNothing, Ignore). An update whose predicates
// also compare a version, a field it sets, or any field by a condition
// (StatusNEQ, StatusIn) is guarded.
func ent(info *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	entity, kind, op, ok := entEnd(fn)
	if !ok {
		return Access{}, false
	}
	ch := readEntChain(info, call)
	a := Access{Op: op, What: fn.Name(), Record: "ent " + RecordName(entity), Target: entity, Call: call}
	set := ch.set()
	switch kind {
	case "Client":
		a.Keys = call.Args[min(len(call.Args), 1):]
	case "Query", "Update", "Delete":
		a.What = kind
		if kind == "Query" {
			a.What = fn.Name()
			// ForUpdate (ent's sql/lock feature): it locks the rows that
			// exist, none that do not yet.
			a.ForUpdate = slices.ContainsFunc(ch.links, func(l entLink) bool { return l.kind == "Query" && (l.name == "ForUpdate" || l.name == "ForShare") })
		}
		preds := ch.predicates(info)
		a.Keys = equalityKeys(preds)
		if kind == "Update" {
			a.Increments = slices.ContainsFunc(ch.links, func(l entLink) bool { return entAdds(info, l) })
			if slices.ContainsFunc(preds, func(p entPredicate) bool { return p.guards(set) }) {
				a.Op = OpGuarded
			}
		}
	case "UpdateOne", "DeleteOne":
		a.What = kind
		preds := ch.predicates(info)
		a.Keys = append(ch.picked(info), equalityKeys(preds)...)
		if kind == "UpdateOne" {
			a.Increments = slices.ContainsFunc(ch.links, func(l entLink) bool { return entAdds(info, l) })
			if slices.ContainsFunc(preds, func(p entPredicate) bool { return p.guards(set) }) {
				a.Op = OpGuarded
			}
		}
	case "Create", "CreateBulk":
		a.What, a.Appends = kind, true
		a.Keys = createKeys(set)
		if kind == "CreateBulk" {
			a.Keys = ch.bulkArgs()
		}
		if constraintTested(info, call) {
			a.Op = OpClaim
		}
	case "UpsertOne", "UpsertBulk":
		a.What = "Create ... OnConflict"
		a.Keys = createKeys(set)
		if ch.ignores(info) {
			a.Op = OpClaim
		}
	}
	return a, true
}

// entEnd reads a method of a generated builder that sends its statement:
// the entity, the builder's kind and what it does before the chain is
// read (see entEnds).
func entEnd(fn *types.Func) (entity, kind string, op Op, ok bool) {
	recv := fn.Signature().Recv()
	if recv == nil {
		return "", "", 0, false
	}
	if entity, kind, ok = entBuilder(recv.Type()); !ok {
		return "", "", 0, false
	}
	op, ok = entEnds[kind][fn.Name()]
	return entity, kind, op, ok
}

// readEntChain walks the builder chain call ends, through a local
// variable holding a builder (b := client.Payment.Create(); b.SetKey(k);
// b.Save(ctx)): the calls made on it before call are links too.
func readEntChain(info *types.Info, call *ast.CallExpr) entChain {
	var ch entChain
	seen := map[*ast.CallExpr]bool{}
	var walk func(e ast.Expr, depth int)
	walk = func(e ast.Expr, depth int) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.CallExpr:
				sel, ok := ast.Unparen(x.Fun).(*ast.SelectorExpr)
				if !ok {
					return
				}
				if !seen[x] {
					seen[x] = true
					l := entLink{name: sel.Sel.Name, call: x}
					if fn := method(info, x); fn != nil {
						_, l.kind, _ = entBuilder(fn.Signature().Recv().Type())
					}
					ch.links = append(ch.links, l)
				}
				e = sel.X
			case *ast.Ident:
				v, _, _, ok := definition(info, x)
				if _, _, builder := entBuilder(info.TypeOf(x)); !ok || !builder || depth > 3 {
					return
				}
				for _, c := range callsOn(info, x, call) {
					walk(c, depth+1)
				}
				e, depth = v, depth+1
			default:
				return
			}
		}
	}
	walk(receiverOf(call), 0)
	slices.Reverse(ch.links)
	return ch
}

// callsOn returns the outermost calls of chains rooted at the variable
// id names that end before call, in call's function: b.SetKey(k) and
// b.Where(p).SetStatus(s) on a builder b.
func callsOn(info *types.Info, id *ast.Ident, call *ast.CallExpr) []ast.Expr {
	v := info.Uses[id]
	body := innermostFunc(enclosing(info, call.Pos()))
	if v == nil || body == nil {
		return nil
	}
	var out []ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || c == call || c.End() > call.Pos() {
			return true
		}
		root := ast.Expr(c)
		for {
			x, isCall := ast.Unparen(root).(*ast.CallExpr)
			if !isCall {
				break
			}
			sel, isSel := ast.Unparen(x.Fun).(*ast.SelectorExpr)
			if !isSel {
				break
			}
			root = sel.X
		}
		if r, isIdent := ast.Unparen(root).(*ast.Ident); isIdent && r != id && info.Uses[r] == v {
			out = append(out, c)
			return false
		}
		return true
	})
	return out
}

// set returns the fields the chain sets, by column name, in the order it
// sets them: SetStatus("done") sets status, SetNillableNote(n) note,
// AddAttempts(1) attempts, ClearResponseBody() response_body (to
// nothing).
func (ch entChain) set() []Field {
	var out []Field
	for _, l := range ch.links {
		if l.kind == "" || l.kind == "Query" || l.kind == "Client" {
			continue
		}
		name, field := "", ""
		for _, prefix := range []string{"SetNillable", "SetOrClear", "Set", "Add", "Clear"} {
			if f, ok := strings.CutPrefix(l.name, prefix); ok && f != "" {
				name, field = prefix, f
				break
			}
		}
		if field == "" {
			continue
		}
		f := Field{Name: strings.Join(Words(field), "_")}
		switch {
		case name == "Clear":
		case len(l.call.Args) == 1:
			f.Value = l.call.Args[0]
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// entAdds reports whether a link adds to a numeric field (AddAttempts(1)):
// done twice, it adds twice.
func entAdds(info *types.Info, l entLink) bool {
	if l.kind == "" || !strings.HasPrefix(l.name, "Add") || strings.HasSuffix(l.name, "IDs") || len(l.call.Args) != 1 {
		return false
	}
	b, ok := info.TypeOf(l.call.Args[0]).Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

// createKeys orders the values a create sets so that its ID and key
// fields come first: a claim is known by its first key.
func createKeys(set []Field) []ast.Expr {
	var first, rest []ast.Expr
	for _, f := range set {
		if f.Value == nil {
			continue
		}
		if ws := Words(f.Name); f.Name == "id" || KeyColumn(f.Name) || len(ws) > 0 && ws[len(ws)-1] == "key" {
			first = append(first, f.Value)
		} else {
			rest = append(rest, f.Value)
		}
	}
	return append(first, rest...)
}

// picked returns what an UpdateOne or DeleteOne builder was made for: the
// id given to UpdateOneID or DeleteOneID, the entity given to UpdateOne or
// DeleteOne, or the entity whose Update method made it.
func (ch entChain) picked(info *types.Info) []ast.Expr {
	for _, l := range ch.links {
		switch {
		case l.kind == "Client" && (l.name == "UpdateOneID" || l.name == "DeleteOneID" || l.name == "UpdateOne" || l.name == "DeleteOne") && len(l.call.Args) == 1:
			return l.call.Args
		case l.kind == "" && l.name == "Update" && len(l.call.Args) == 0:
			if x := receiverOf(l.call); x != nil {
				if _, _, isBuilder := entBuilder(info.TypeOf(x)); !isBuilder {
					return []ast.Expr{x}
				}
			}
		}
	}
	return nil
}

// bulkArgs returns the builders given to CreateBulk.
func (ch entChain) bulkArgs() []ast.Expr {
	for _, l := range ch.links {
		if l.kind == "Client" && l.name == "CreateBulk" {
			return l.call.Args
		}
	}
	return nil
}

// ignores reports whether an upsert leaves an existing row as it is: its
// conflict is resolved with DoNothing or Ignore (on the builder, or as
// sql.DoNothing() or sql.ResolveWithIgnore() given to OnConflict).
func (ch entChain) ignores(info *types.Info) bool {
	for _, l := range ch.links {
		switch {
		case l.kind == "UpsertOne" || l.kind == "UpsertBulk":
			if l.name == "DoNothing" || l.name == "Ignore" {
				return true
			}
		case l.name == "OnConflict":
			for _, arg := range l.call.Args {
				if c, isCall := ast.Unparen(arg).(*ast.CallExpr); !isCall {
					continue
				} else if fn, ok := typeutil.Callee(info, c).(*types.Func); ok && (fn.Name() == "DoNothing" || fn.Name() == "ResolveWithIgnore") {
					return true
				}
			}
		}
	}
	return false
}

// entPredicate is one comparison of a field a Where clause makes.
type entPredicate struct {
	field string // the column, "idempotency_key"
	equal bool   // an equality (payment.Status(s), StatusEQ); else a condition (StatusNEQ, StatusIn)
	value ast.Expr
}

// entConditions are the suffixes of the predicate functions ent
// generates for a field that compare it otherwise than for equality.
var entConditions = []string{"NEQ", "NotIn", "In", "GTE", "GT", "LTE", "LT", "IsNil", "NotNil", "HasPrefix", "HasSuffix", "Contains", "EqualFold", "ContainsFold"}

// predicates returns the comparisons of the chain's Where clauses:
// payment.IdempotencyKey(k), payment.StatusEQ("pending"), through
// payment.And.
func (ch entChain) predicates(info *types.Info) []entPredicate {
	var out []entPredicate
	var read func(e ast.Expr, depth int)
	read = func(e ast.Expr, depth int) {
		c, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok || depth > 4 {
			return
		}
		fn, ok := typeutil.Callee(info, c).(*types.Func)
		if !ok || fn.Signature().Recv() != nil || !entGenerated(fn.Pkg()) {
			return
		}
		name := fn.Name()
		switch name {
		case "And", "Or":
			for _, a := range c.Args {
				read(a, depth+1)
			}
			return
		case "Not":
			return
		}
		p := entPredicate{equal: true}
		field := strings.TrimSuffix(name, "EQ")
		for _, s := range entConditions {
			if f, found := strings.CutSuffix(name, s); found && f != "" && fn.Pkg().Scope().Lookup(f+"EQ") != nil {
				field, p.equal = f, false
				break
			}
		}
		p.field = strings.Join(Words(field), "_")
		if len(c.Args) == 1 {
			p.value = c.Args[0]
		}
		out = append(out, p)
	}
	for _, l := range ch.links {
		if l.name == "Where" && l.kind != "" {
			for _, a := range l.call.Args {
				read(a, 0)
			}
		}
	}
	return out
}

// guards reports whether a predicate makes an update a compare-and-set:
// a condition, a version, or a field the update sets to something else
// (StatusEQ("pending") while it sets status "done").
func (p entPredicate) guards(set []Field) bool {
	if !p.equal || versionColumn(p.field) {
		return true
	}
	for _, f := range set {
		if f.Name == p.field && (f.Value == nil || p.value == nil || types.ExprString(f.Value) != types.ExprString(p.value)) {
			return true
		}
	}
	return false
}

// equalityKeys returns the values predicates compare for equality.
func equalityKeys(preds []entPredicate) []ast.Expr {
	var out []ast.Expr
	for _, p := range preds {
		if p.equal && p.value != nil {
			out = append(out, p.value)
		}
	}
	return out
}

// constraintTested reports whether the error of call is tested, later in
// its function, for a unique constraint: ent's IsConstraintError, or a
// predicate named for a duplicate or a unique violation.
func constraintTested(info *types.Info, call *ast.CallExpr) bool {
	return errorTested(info, call, func(name string) bool {
		ws := Words(name)
		return duplicateName(name) || slices.Contains(ws, "constraint") || slices.Contains(ws, "unique")
	})
}

// entWritten returns the fields an ent create, update or upsert sets.
// Reading the chain tells a write from a claim or a guarded update, never
// a write from a read or a delete, so the end alone says whether it
// writes.
func entWritten(info *types.Info, call *ast.CallExpr, fn *types.Func) ([]Field, bool) {
	_, _, op, ok := entEnd(fn)
	if !ok || op == OpRead || op == OpDelete {
		return nil, false
	}
	return readEntChain(info, call).set(), true
}
