package match

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// Fresh reports whether call makes a value that differs every time it
// runs, which makes a poor idempotency key: a random UUID or ULID
// (github.com/google/uuid, github.com/oklog/ulid/v2), stripe-go's
// NewIdempotencyKey, time.Now, or a math/rand, math/rand/v2 or crypto/rand
// value. It returns the callee as a message names it ("uuid.NewString").
// A name-based UUID (uuid.NewSHA1, NewMD5) is derived, not fresh.
func Fresh(info *types.Info, call *ast.CallExpr) (string, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	name := fn.Pkg().Name() + "." + fn.Name()
	if recv := fn.Signature().Recv(); recv != nil {
		name = types.TypeString(recv.Type(), func(p *types.Package) string { return p.Name() }) + "." + fn.Name()
		name = strings.TrimPrefix(name, "*")
	}
	path := fn.Pkg().Path()
	switch {
	case path == "github.com/google/uuid":
		switch fn.Name() {
		case "New", "NewString", "NewRandom", "NewV7", "NewUUID", "NewV6", "NewRandomFromReader":
			return name, true
		}
	case path == "github.com/oklog/ulid/v2" || path == "github.com/oklog/ulid":
		switch fn.Name() {
		case "Make", "New", "MustNew", "MustNewDefault":
			return name, true
		}
	case inPackage(fn, "github.com/stripe/stripe-go/..."):
		return name, fn.Name() == "NewIdempotencyKey"
	case path == "time":
		return name, fn.Name() == "Now"
	case path == "math/rand", path == "math/rand/v2":
		return name, !strings.HasPrefix(fn.Name(), "New") // constructors make generators, not values
	case path == "crypto/rand":
		return name, fn.Name() == "Text" || fn.Name() == "Int"
	}
	return "", false
}
