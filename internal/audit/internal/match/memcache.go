package match

import (
	"go/ast"
	"go/types"
	"strings"
)

// A memCacheLib is an in-memory cache library that services use as a
// dedup set: "seen this event?" answered by a lookup, then the work, then
// an add. Like a sync.Map it lives in one process, and its lookup and add
// are two steps that two deliveries of one message interleave.
type memCacheLib struct {
	name  string // as findings and advice name it
	paths []string
	ops   map[string]Op
	// claim is the call that adds only an absent key and says whether it
	// did, "" when the library has none.
	claim string
}

var memCacheLibs = []memCacheLib{{
	name:  "go-cache",
	paths: []string{"github.com/patrickmn/go-cache"},
	ops: map[string]Op{"Get": OpRead, "GetWithExpiration": OpRead, "Set": OpWrite, "SetDefault": OpWrite,
		"Add": OpClaim, "Delete": OpDelete},
	claim: "Add, which fails when the key is there",
}, {
	name: "golang-lru",
	paths: []string{"github.com/hashicorp/golang-lru/...", "github.com/hashicorp/golang-lru/v2/...",
		"github.com/golang/groupcache/lru"},
	ops: map[string]Op{"Get": OpRead, "Peek": OpRead, "Contains": OpRead, "Add": OpWrite,
		"ContainsOrAdd": OpClaim, "PeekOrAdd": OpClaim, "Remove": OpDelete},
	claim: "ContainsOrAdd, going on only when it reports the key was not there",
}, {
	name:  "ristretto",
	paths: []string{"github.com/dgraph-io/ristretto", "github.com/dgraph-io/ristretto/v2"},
	ops:   map[string]Op{"Get": OpRead, "Set": OpWrite, "SetWithTTL": OpWrite, "Del": OpDelete},
}, {
	name:  "bigcache",
	paths: []string{"github.com/allegro/bigcache", "github.com/allegro/bigcache/v2", "github.com/allegro/bigcache/v3"},
	ops:   map[string]Op{"Get": OpRead, "Set": OpWrite, "Delete": OpDelete},
}, {
	name:  "ttlcache",
	paths: []string{"github.com/jellydator/ttlcache/v2", "github.com/jellydator/ttlcache/v3"},
	ops: map[string]Op{"Get": OpRead, "Has": OpRead, "Set": OpWrite, "SetWithTTL": OpWrite,
		"GetOrSet": OpClaim, "Delete": OpDelete, "Remove": OpDelete, "GetAndDelete": OpDelete},
	claim: "GetOrSet, going on only when its found result is false",
}, {
	name:  "freecache",
	paths: []string{"github.com/coocood/freecache"},
	ops: map[string]Op{"Get": OpRead, "GetWithExpiration": OpRead, "Peek": OpRead, "Set": OpWrite,
		"GetOrSet": OpClaim, "Del": OpDelete},
	claim: "GetOrSet, going on only when it returns no previous value",
}}

// memCache reads a method call on an in-memory cache of memCacheLibs: its
// record is the cache as written ("cache go-cache s.seen"), its key the
// first argument.
func memCache(_ *types.Info, call *ast.CallExpr, fn *types.Func) (Access, bool) {
	if fn.Signature().Recv() == nil || len(call.Args) == 0 {
		return Access{}, false
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return Access{}, false
	}
	for _, lib := range memCacheLibs {
		op, ok := lib.ops[fn.Name()]
		if !ok || !inAny(fn, lib.paths) {
			continue
		}
		m := types.ExprString(sel.X)
		return Access{Op: op, What: fn.Name(), Record: "cache " + lib.name + " " + m, Target: m, Keys: call.Args[:1], Call: call}, true
	}
	return Access{}, false
}

func inAny(fn *types.Func, paths []string) bool {
	for _, p := range paths {
		if inPackage(fn, p) {
			return true
		}
	}
	return false
}

// MemCacheClaim names the call of the in-memory cache library a record
// ("cache <library> <cache>") is kept in that adds a key only when it is
// absent, "" when the library has none.
func MemCacheClaim(record string) string {
	for _, lib := range memCacheLibs {
		if strings.HasPrefix(record, "cache "+lib.name+" ") {
			return lib.claim
		}
	}
	return ""
}
