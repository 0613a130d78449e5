package match

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"slices"
	"testing"
)

func TestEmbedPatterns(t *testing.T) {
	t.Parallel()
	doc := &ast.CommentGroup{List: []*ast.Comment{
		{Text: "// claimLua takes the key."},
		{Text: "//go:embed claim.lua \"lua/mark me.lua\" all:scripts"},
		{Text: "//go:embedded not.lua"},
	}}
	got := embedPatterns(doc)
	if want := []string{"claim.lua", "lua/mark me.lua", "scripts"}; !slices.Equal(got, want) {
		t.Errorf("embedPatterns = %q, want %q", got, want)
	}
}

func TestEmbedCovers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"claim.lua", "claim.lua", true},
		{"lua/*.lua", "lua/claim.lua", true},
		{"scripts", "scripts/redis/claim.lua", true},
		{"lua/*.lua", "scripts/claim.lua", false},
		{"claim.lua", "mark.lua", false},
	} {
		if got := embedCovers(tc.pattern, tc.name); got != tc.want {
			t.Errorf("embedCovers(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	for name, want := range map[string]bool{"lua/claim.lua": true, "../claim.lua": false, "/etc/claim.lua": false, "lua/../claim.lua": false, "": false} {
		if got := validEmbedName(name); got != want {
			t.Errorf("validEmbedName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSprintf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		args   []string
		want   string
		ok     bool
	}{
		{"%s.lua", []string{"claim"}, "claim.lua", true},
		{"lua/%v/%s.lua", []string{"v2", "mark"}, "lua/v2/mark.lua", true},
		{"100%%", nil, "100%", true},
		{"%d.lua", []string{"1"}, "", false},
		{"%s.lua", nil, "", false},
		{"claim.lua", []string{"extra"}, "", false},
	} {
		got, ok := sprintf(tc.format, tc.args)
		if got != tc.want || ok != tc.ok {
			t.Errorf("sprintf(%q, %q) = %q, %v; want %q, %v", tc.format, tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// TestDirOf pins where an embedded script is looked for: the directory
// of the file, as the file set names it, and nowhere when the name is not
// an absolute path (a driver's own name for a file, or no file set).
func TestDirOf(t *testing.T) {
	t.Parallel()
	abs := filepath.Join(t.TempDir(), "store.go")
	for _, tc := range []struct {
		name string
		fset bool
		want string
	}{
		{abs, true, filepath.Dir(abs)},
		{"store.go", true, ""},
		{abs, false, ""},
	} {
		fset := gotoken.NewFileSet()
		f, err := parser.ParseFile(fset, tc.name, "package store\n", parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		b := bound{}
		if tc.fset {
			b.fset = fset
		}
		if got := b.dirOf(f); got != tc.want {
			t.Errorf("dirOf(%s) with a file set %v = %q, want %q", tc.name, tc.fset, got, tc.want)
		}
	}
}
