package cacheresponse

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/types/typeutil"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

// lookup returns, for a completion of a key the function neither claimed
// nor locked, the earlier lookup that makes the store a response cache:
// a call of a method of the same store (the same receiver) given the same
// key, whose results include what the completion stores. A middleware
// that answers a hit with what Get found and keeps the handler's answer
// with Set under that key replays it, and what it keeps is checked as a
// claimed key's completion is. The lookup stands in for the claim, with
// no Via.
func (a *checker) lookup(f *claim.Func, call *ast.CallExpr, key int) *claim.Claim {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	fn, _ := typeutil.Callee(a.info, call).(*types.Func)
	if !ok || fn == nil || key < 0 || key >= len(call.Args) {
		return nil
	}
	i := responseParam(fn.Signature())
	if i < 0 || i == key && !carriesKey(fn, i) || i >= fn.Signature().Params().Len() {
		return nil
	}
	if match.SafeMethodsOnly(a.info, f.Body, call) {
		return nil
	}
	stored := fn.Signature().Params().At(i).Type()
	store := types.ExprString(sel.X)
	for c := range f.Calls() {
		if c.Pos() >= call.Pos() {
			break
		}
		csel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok || types.ExprString(csel.X) != store {
			continue
		}
		get, _ := typeutil.Callee(a.info, c).(*types.Func)
		if get == nil || get == fn || !returns(get.Signature(), stored) {
			continue
		}
		for _, arg := range c.Args {
			if isStringish(a.info.TypeOf(arg)) && a.sameVars(arg, call.Args[key]) {
				return &claim.Claim{Call: c, Callee: get, What: get.Name(), Key: arg}
			}
		}
	}
	return nil
}

// carriesKey reports whether fn's parameter i is a record that holds
// its key as well as the response: CacheResponse(ctx, Cached{Key: k, Body: b}).
func carriesKey(fn *types.Func, i int) bool {
	return i < fn.Signature().Params().Len() && structOf(fn.Signature().Params().At(i).Type()) != nil
}

// returns reports whether one of sig's results is t (through pointers),
// or a struct with a field of type t: Get gives back the *Saved that
// Set(key, saved) keeps, or the Body that Set(key, code, header, body)
// keeps in it.
func returns(sig *types.Signature, t types.Type) bool {
	for r := range sig.Results().Variables() {
		if types.Identical(deref(r.Type()), deref(t)) {
			return true
		}
		if s := structOf(r.Type()); s != nil {
			for f := range s.Fields() {
				if types.Identical(f.Type(), t) {
					return true
				}
			}
		}
	}
	return false
}

func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

func isStringish(t types.Type) bool {
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// took says how the function took the key c stands for: claimed, or
// looked up (see lookup).
func (a *checker) took(c *claim.Claim) string {
	verb := "claimed"
	if c.Via == 0 {
		verb = "looked up"
	}
	return verb + " by " + c.What + " at " + a.where(c.Call.Pos())
}
