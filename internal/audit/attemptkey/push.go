package attemptkey

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"
)

// pushEnvelope returns the type of a Pub/Sub push envelope that an HTTP
// handler's body holds in a variable, nil when it holds none. Pub/Sub
// POSTs each delivery of a message to a push endpoint as JSON,
// {"message": {"data", "messageId", "attributes"}, "subscription"}, and
// posts it again until the endpoint answers 2xx: the handler, a request
// handler by its signature, runs once per delivery, and the message's ID
// or an attribute names the message while a value made in it does not.
func pushEnvelope(info *types.Info, body *ast.BlockStmt) types.Type {
	if body == nil {
		return nil
	}
	var env types.Type
	ast.Inspect(body, func(n ast.Node) bool {
		if env != nil {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v, ok := info.Defs[id].(*types.Var); ok && envelope(v.Type()) {
			env = v.Type()
		}
		return true
	})
	return env
}

// envelope reports the shape of a Pub/Sub push envelope: a struct with a
// subscription name and a message that holds data and the message's ID or
// attributes, by their JSON names.
func envelope(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	var sub, msg bool
	for i := range s.NumFields() {
		f := s.Field(i)
		switch jsonName(f, s.Tag(i)) {
		case "subscription":
			b, ok := f.Type().Underlying().(*types.Basic)
			sub = ok && b.Info()&types.IsString != 0
		case "message":
			msg = pushMessage(f.Type())
		}
	}
	return sub && msg
}

// pushMessage reports the message of a push envelope: a struct with its
// data and its messageId or attributes.
func pushMessage(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	var data, named bool
	for i := range s.NumFields() {
		switch jsonName(s.Field(i), s.Tag(i)) {
		case "data":
			data = true
		case "messageid", "message_id", "attributes":
			named = true
		}
	}
	return data && named
}

// jsonName returns the lowercased name a field has in JSON: its tag's, or
// its own (encoding/json matches names case-insensitively).
func jsonName(f *types.Var, tag string) string {
	name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
	if name == "" || name == "-" {
		name = f.Name()
	}
	return strings.ToLower(name)
}
