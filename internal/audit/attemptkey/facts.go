package attemptkey

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// keyFact is what the check knows of an exported function for its callers
// in other packages, so that an ID helper package (ids.NewKey) or a client
// that makes its own delivery ID (webhook.Send) is followed across the
// import: the fresh value it returns, the key it makes and sends itself,
// and the parameters that reach a sink in it.
type keyFact struct {
	Returns   string // "uuid.NewString at ids.go:8": the fresh value it returns
	Process   bool   // what Returns names is made once per process
	Makes     string // "uuid.NewString at send.go:12, reaching the Idempotency-Key header at send.go:14"
	MakesOnly []kind // the attempts in which Makes is a mistake; nil for all
	// Mints is the fresh ID of the record it returns ("uuid.NewString at
	// jobs.go:12"), held in the record's field MintsField.
	Mints      string
	MintsField string
	// Payload is the part made fresh of the payload of the asynq task it
	// builds and returns ("the RequestedAt of the exportPayload made by
	// time.Now at tasks.go:12").
	Payload string
	// Keeps marks a subscribe of an in-process bus, which only keeps the
	// handlers it is given for its Publish to call (inProcess).
	Keeps bool
	// Params are the parameters that reach a sink, in the order of their index: a slice, not a
	// map, so that the fact encodes the same every time (gob writes a map in iteration order).
	Params []paramReach
}

// paramReach is a parameter, by index, and the sink it reaches.
type paramReach struct {
	Index int
	Reach reach
}

// paramList is params in the order of their index.
func paramList(params map[int]reach) []paramReach {
	var out []paramReach
	for _, i := range slices.Sorted(maps.Keys(params)) {
		out = append(out, paramReach{i, params[i]})
	}
	return out
}

// AFact marks keyFact as an analysis fact.
func (*keyFact) AFact() {}

func (f *keyFact) String() string {
	var parts []string
	if f.Returns != "" {
		parts = append(parts, "returns "+f.Returns)
	}
	if f.Process {
		parts = append(parts, "once per process")
	}
	if f.Makes != "" {
		parts = append(parts, "makes "+f.Makes)
	}
	if f.Mints != "" {
		parts = append(parts, fmt.Sprintf("returns a record whose %s is %s", f.MintsField, f.Mints))
	}
	if f.Payload != "" {
		parts = append(parts, "returns a task whose payload carries "+f.Payload)
	}
	if f.Keeps {
		parts = append(parts, "keeps the handlers it is given")
	}
	for _, p := range f.Params {
		parts = append(parts, fmt.Sprintf("parameter %d reaches %s", p.Index, p.Reach.What))
	}
	return "attemptkey: " + strings.Join(parts, "; ")
}

// exportFacts exports a keyFact for each exported function of the package
// that returns a fresh value or a record with a fresh ID, makes and sends
// a key, hands a parameter to a sink, or keeps the handlers of an
// in-process bus.
func (c *checker) exportFacts(decls []*ast.FuncDecl) {
	for _, decl := range decls {
		fn := c.pass.TypesInfo.Defs[decl.Name].(*types.Func)
		if !fn.Exported() {
			continue
		}
		f := &keyFact{Params: paramList(c.paramSinks(fn))}
		if o := c.returnsFresh(fn); o != nil && !o.delivered {
			f.Returns, f.Process = fmt.Sprintf("%s at %s", o.what, c.where(o.pos)), o.process
		}
		if m := c.makesKey(fn); m != nil {
			f.Makes, f.MakesOnly = m.what, m.only
		}
		if m := c.mints(fn); m != nil {
			f.Mints, f.MintsField = m.what, m.field
		}
		f.Keeps, f.Payload = c.inProcess(fn), c.freshPayload(fn)
		if f.Returns != "" || f.Makes != "" || f.Mints != "" || f.Keeps || f.Payload != "" || len(f.Params) > 0 {
			c.pass.ExportObjectFact(fn, f)
		}
	}
}

// fact returns the keyFact of a function of another package; nil for none.
func (c *checker) fact(fn *types.Func) *keyFact {
	if fn.Pkg() == c.pass.Pkg {
		return nil
	}
	var f keyFact
	if !c.pass.ImportObjectFact(fn, &f) {
		return nil
	}
	return &f
}

// stdlib reports a package of the standard library, which makes no keys:
// the check does nothing there, though it runs on every dependency for
// its facts.
func stdlib(files []*ast.File, fileName func(*ast.File) string) bool {
	if len(files) == 0 {
		return true
	}
	src := filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)
	return strings.HasPrefix(fileName(files[0]), src)
}
