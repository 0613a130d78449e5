package match

import (
	"go/types"
	"strings"
)

// ID libraries beyond those freshFuncs names (nanoid, shortid, snowflake,
// sonyflake, shortuuid), known by their shape: Fresh asks idFunc.

// genVerbs name a call that hands out the next ID: nanoid's New and
// Generate, shortid's Generate, snowflake's Node.Generate, sonyflake's
// NextID, shortuuid's New.
var genVerbs = map[string]bool{
	"New": true, "NewString": true, "Must": true, "Make": true, "Generate": true, "MustGenerate": true,
	"Next": true, "NextID": true, "NewID": true, "GenerateID": true,
}

// idPackage reports a package of an ID library beyond those freshFuncs
// lists: one named for IDs (its name or the last element of its path,
// less a major version, ends in id or flake: gonanoid, go-nanoid,
// shortid, shortuuid, snowflake, sonyflake).
func idPackage(pkg *types.Package) bool {
	if pkg == nil || !strings.Contains(strings.Split(pkg.Path(), "/")[0], ".") {
		return false // the standard library, or the module's own
	}
	elems := strings.Split(pkg.Path(), "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	for _, name := range []string{strings.ToLower(last), strings.ToLower(pkg.Name())} {
		if strings.HasSuffix(name, "id") || strings.HasSuffix(name, "flake") {
			return true
		}
	}
	return false
}

// idValue reports a type an ID is held in: a string or an integer, or a
// type of the library's own over one or over bytes (snowflake.ID, a
// [16]byte UUID). A generator (*snowflake.Node) is none.
func idValue(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsString|types.IsInteger) != 0
	case *types.Array:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	return false
}

// setupOnly reports a signature whose parameters only set up what is
// generated, not from what: lengths and sizes, worker or node numbers,
// an alphabet. A name-based ID takes its input (a namespace, a name, a
// seed value) and is derived from it.
func setupOnly(sig *types.Signature) bool {
	for p := range sig.Params().Variables() {
		t := p.Type()
		if s, ok := t.(*types.Slice); ok && sig.Variadic() {
			t = s.Elem() // gonanoid.New(l ...int)
		}
		b, ok := t.Underlying().(*types.Basic)
		switch {
		case ok && b.Info()&types.IsInteger != 0:
		case ok && b.Info()&types.IsString != 0 && strings.Contains(strings.ToLower(p.Name()), "alphabet"):
		default:
			return false
		}
	}
	return true
}

// idFunc reports a call that hands out a new ID from an ID library: a
// function of one named for a generator verb, or such a method of one of
// its generators (a pointer to a struct: snowflake's Node, sonyflake's
// Sonyflake, shortid's Shortid), that takes nothing to derive the ID
// from and returns an ID, the first of its results. Each call returns an
// ID no other call returns.
func idFunc(fn *types.Func) (string, bool) {
	sig := fn.Signature()
	if !idPackage(fn.Pkg()) || !genVerbs[fn.Name()] || !setupOnly(sig) || sig.Results().Len() == 0 || !idValue(sig.Results().At(0).Type()) {
		return "", false
	}
	recv := sig.Recv()
	if recv == nil {
		return fn.Pkg().Name() + "." + fn.Name(), true
	}
	p, ok := recv.Type().(*types.Pointer)
	if !ok {
		return "", false // a method of the ID itself
	}
	if _, ok := p.Elem().Underlying().(*types.Struct); !ok {
		return "", false
	}
	return types.TypeString(p.Elem(), func(p *types.Package) string { return p.Name() }) + "." + fn.Name(), true
}

// MakesIDs reports a function of an ID library that makes a generator:
// given only its setup (setupOnly), it returns a func() of an ID
// (jaevor/go-nanoid's Standard(21)), each call of which is fresh.
func MakesIDs(fn *types.Func) bool {
	sig := fn.Signature()
	if sig.Recv() != nil || !idPackage(fn.Pkg()) || !setupOnly(sig) || sig.Results().Len() == 0 {
		return false
	}
	gen, ok := sig.Results().At(0).Type().Underlying().(*types.Signature)
	return ok && gen.Params().Len() == 0 && gen.Results().Len() == 1 && idValue(gen.Results().At(0).Type())
}
