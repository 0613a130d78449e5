package match

import (
	"go/ast"
	"go/importer"
	"go/parser"
	gotoken "go/token"
	"go/types"
	"reflect"
	"strings"
	"testing"
)

// fakeFmt type-checks as package fmt with the one function the skeletons
// read, so that the test needs no export data.
func fakeFmt(t *testing.T, fset *gotoken.FileSet) *types.Package {
	t.Helper()
	f, err := parser.ParseFile(fset, "fmt.go", "package fmt\nfunc Sprintf(format string, a ...any) string { return format }\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := (&types.Config{Importer: importer.Default()}).Check("fmt", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

func TestBuiltQuery(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		body  string
		want  Statement
		holes string // the spliced-in expressions, "; "-separated
		ok    bool
	}{
		{`use(fmt.Sprintf("SELECT 1 FROM %s WHERE event_id = $1", events))`,
			Statement{Verb: Select, Table: "processed_events", Columns: []string{"event_id"}}, "", true},
		{`use(fmt.Sprintf("SELECT 1 FROM %s WHERE event_id = $1", table))`,
			Statement{Verb: Select, Columns: []string{"event_id"}}, "table", true},
		{`use(fmt.Sprintf("SELECT 1 FROM processed_events WHERE event_id = '%s' AND n = %d", id, 3))`,
			Statement{Verb: Select, Table: "processed_events", Columns: []string{"event_id", "n"}}, "id", true},
		{`use("INSERT INTO " + events + " (event_id) VALUES ($1) ON CONFLICT DO NOTHING")`,
			Statement{Verb: Insert, Table: "processed_events", Columns: []string{"event_id"}, Conditional: true}, "", true},
		{`use("DELETE FROM events_" + table + " WHERE id = $1")`,
			Statement{Verb: Delete, Columns: []string{"id"}}, "table", true},
		{`use("DELETE FROM " + table + "_events WHERE id = $1")`,
			Statement{Verb: Delete, Columns: []string{"id"}}, "table", true},
		{`q := "SELECT status FROM jobs WHERE id = $1"; q += " FOR UPDATE"; use(q)`,
			Statement{Verb: Select, Table: "jobs", Columns: []string{"id"}, ForUpdate: true}, "", true},
		{`q := fmt.Sprintf("UPDATE %q SET state = '%s' WHERE id = %d AND state = 'new'", "Jobs", "done", 7); q = d.Rebind(q); use(q)`,
			Statement{Verb: Update, Table: "jobs", Assigned: []string{"state"}, Columns: []string{"id", "state"}, Guarded: true, SetLiterals: map[string]string{"state": "done"}}, "", true},
		{`use(fmt.Sprintf("SELECT * FROM t WHERE id = %[1]d AND k = %s", n))`,
			Statement{Verb: Select, Table: "t", Columns: []string{"id", "k"}}, "", true},
		{`use(fmt.Sprintf("SELECT * FROM t WHERE id = %d %s", n))`,
			Statement{Verb: Select, Table: "t", Columns: []string{"id"}}, "n", true},
		{`use(fmt.Sprintf("SELECT 1 FROM events_%d WHERE name LIKE 'a%%' AND id = %d", 2024, n))`,
			Statement{Verb: Select, Table: "events_2024", Columns: []string{"id"}}, "n", true},
		{`q := "SELECT 1 FROM jobs"; q = table; use(q)`, Statement{}, "", false},
		{`use(fmt.Sprintf("%d%%", n))`, Statement{}, "", false},
		{`use(table + " WHERE id = 1")`, Statement{}, "", false},
		{`use(id)`, Statement{}, "", false},
		{`args := []any{table}; use(fmt.Sprintf("SELECT 1 FROM %s", args...))`, Statement{}, "", false},
	} {
		src := "package p\nimport \"fmt\"\nconst events = \"processed_events\"\ntype db struct{}\n" +
			"func (db) Rebind(q string) string { return q }\nfunc use(string) {}\n" +
			"var _ = fmt.Sprintf\nfunc f(d db, table, id string, n int) {\n" + tt.body + "\n}\n"
		fset := gotoken.NewFileSet()
		file, err := parser.ParseFile(fset, "p.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmtPkg := fakeFmt(t, fset)
		info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
			Uses: map[*ast.Ident]types.Object{}, Scopes: map[ast.Node]*types.Scope{}}
		conf := types.Config{Importer: importerFunc(func(string) (*types.Package, error) { return fmtPkg, nil })}
		if _, err := conf.Check("p", fset, []*ast.File{file}, info); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		var arg ast.Expr
		ast.Inspect(file, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "use" {
					arg = call.Args[0]
				}
			}
			return true
		})
		st, holes, ok := builtQuery(info, arg)
		var hs []string
		for _, h := range holes {
			hs = append(hs, types.ExprString(h))
		}
		if ok != tt.ok || !reflect.DeepEqual(st, tt.want) || (ok && strings.Join(hs, "; ") != tt.holes) {
			t.Errorf("%s\n got %+v %q %v\nwant %+v %q %v", tt.body, st, hs, ok, tt.want, tt.holes, tt.ok)
		}
	}
}
