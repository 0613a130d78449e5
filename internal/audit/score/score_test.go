package score

import (
	"errors"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/audit/driver"
)

var checks = []string{"checkthenact", "attemptkey", "releaseonerror", "cacheresponse"}

// writeCorpus writes files (relative name -> source) under a new directory.
func writeCorpus(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const scenarios = `package h

// Bug1 reads then writes.
// corpus: bug checkthenact
func Bug1() {
	_ = 1
}

// OK1 claims atomically.
// corpus: ok checkthenact
func OK1() {
	_ = 2
}

type S struct{}

// Fresh makes a key per attempt, and is also a look-alike for releaseonerror.
// corpus: bug attemptkey
// corpus: ok releaseonerror
func (s *S) Fresh() {
	_ = 3
}

// helper carries no mark.
func helper() {
	_ = 4
}

// Bug2 is a second check-then-act.
// corpus: bug checkthenact
func Bug2() {
	_ = 5
}
`

// at returns the position of the first occurrence of needle in the file.
func at(t *testing.T, dir, file, needle string) token.Position {
	t.Helper()
	path := filepath.Join(dir, file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Index(string(src), needle)
	if off < 0 {
		t.Fatalf("%q not in %s", needle, file)
	}
	line := 1 + strings.Count(string(src[:off]), "\n")
	return token.Position{Filename: path, Offset: off, Line: line, Column: 1}
}

func finding(check string, pos token.Position) driver.Finding {
	return driver.Finding{Analyzer: check, Pos: pos, Message: check + " says so"}
}

func TestParse(t *testing.T) {
	t.Parallel()
	dir := writeCorpus(t, map[string]string{
		"h/h.go":             scenarios,
		"testdata/skip/s.go": "package s\n\n// corpus: bug nosuchcheck\nfunc X() {}\n",
		"_skip/s.go":         "package s\n\n// corpus: bug nosuchcheck\nfunc X() {}\n",
		"h/notes.txt":        "// corpus: bug nosuchcheck\n",
	})
	c, err := Parse(dir, checks)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range c.Scenarios {
		got = append(got, s.Pos(c.Dir)+" "+s.Name+" "+markOf(s, "releaseonerror"))
	}
	want := []string{
		"h/h.go:5 Bug1 bug checkthenact",
		"h/h.go:11 OK1 ok checkthenact",
		"h/h.go:20 S.Fresh ok releaseonerror",
		"h/h.go:31 Bug2 bug checkthenact",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("scenarios:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, src string
		want      []string // substrings of the error, in order
	}{
		{"unknown check", "// corpus: bug checkthenat\nfunc F() {}\n",
			[]string{"b.go:3: unknown check \"checkthenat\"; use one of checkthenact, attemptkey"}},
		{"unknown kind", "// corpus: bugs checkthenact\nfunc F() {}\n",
			[]string{"b.go:3: corpus: kind \"bugs\" is neither bug nor ok; write \"// corpus: bug CHECK\""}},
		{"missing check", "// corpus: bug\nfunc F() {}\n",
			[]string{"b.go:3: malformed corpus: line \"bug\"; write"}},
		{"trailing words", "// corpus: ok attemptkey because\nfunc F() {}\n",
			[]string{"b.go:3: malformed corpus: line \"ok attemptkey because\"; write", "with nothing after CHECK"}},
		{"marked twice", "// corpus: ok attemptkey\n// corpus: bug attemptkey\nfunc F() {}\n",
			[]string{"b.go:4: F is marked twice for attemptkey; keep one corpus: line per check"}},
		{"on a type", "// corpus: bug attemptkey\ntype T int\n",
			[]string{"b.go:3: a corpus: line outside a top-level function's doc comment marks nothing; move it into the doc comment"}},
		{"inside a body", "func F() {\n\t// corpus: bug attemptkey\n}\n",
			[]string{"b.go:4: a corpus: line outside"}},
		{"every error", "// corpus: bug x\nfunc F() {}\n\n// corpus: bug y\nfunc G() {}\n",
			[]string{"b.go:3: unknown check \"x\"", "b.go:6: unknown check \"y\""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := writeCorpus(t, map[string]string{"a/b.go": "package a\n\n" + tc.src})
			_, err := Parse(dir, checks)
			if err == nil {
				t.Fatal("no error")
			}
			var me *MarkError
			if !errors.As(err, &me) {
				t.Errorf("%v is not a *MarkError", err)
			}
			msg, rest := err.Error(), err.Error()
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error\n%s\ndoes not hold (in order)\n%s", msg, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestParseSyntaxError(t *testing.T) {
	t.Parallel()
	dir := writeCorpus(t, map[string]string{"a/b.go": "package a\n\nfunc F( {}\n"})
	_, err := Parse(dir, checks)
	if err == nil || !strings.Contains(err.Error(), "b.go:3") {
		t.Errorf("err = %v, want the file and line of the syntax error", err)
	}
}

func TestScore(t *testing.T) {
	t.Parallel()
	dir := writeCorpus(t, map[string]string{"h/h.go": scenarios, "h/other.go": "package h\n\nfunc Loose() {\n\t_ = 9\n}\n"})
	c, err := Parse(dir, checks)
	if err != nil {
		t.Fatal(err)
	}
	pos := func(needle string) token.Position { return at(t, dir, "h/h.go", needle) }
	findings := []driver.Finding{
		// Bug1 found twice: one true positive.
		finding("checkthenact", pos("_ = 1")),
		finding("checkthenact", pos("func Bug1")),
		// A look-alike flagged twice: one false positive.
		finding("checkthenact", pos("_ = 2")),
		finding("checkthenact", pos("OK1() {")),
		// The bug of attemptkey found; releaseonerror's look-alike flagged;
		// cacheresponse flags it though it is not marked for that check.
		finding("attemptkey", pos("_ = 3")),
		finding("releaseonerror", pos("_ = 3")),
		finding("cacheresponse", pos("_ = 3")),
		// Outside every scenario: an unmarked helper, a doc comment, another file.
		finding("checkthenact", pos("_ = 4")),
		finding("checkthenact", pos("// Bug2 is")),
		finding("attemptkey", at(t, dir, "h/other.go", "_ = 9")),
		// A check the corpus does not know.
		finding("newcheck", pos("_ = 5")),
	}
	r := Score(c, findings)
	type row struct{ bugs, ok, tp, missed, fp int }
	want := map[string]row{
		"checkthenact":   {bugs: 2, ok: 1, tp: 1, missed: 1, fp: 3},
		"attemptkey":     {bugs: 1, tp: 1, fp: 1},
		"releaseonerror": {ok: 1, fp: 1},
		"cacheresponse":  {fp: 1},
		"newcheck":       {fp: 1},
		"all":            {bugs: 3, ok: 2, tp: 2, missed: 1, fp: 7},
	}
	figures := map[string]Figures{"all": r.All}
	for _, cs := range r.Checks {
		figures[cs.Check] = cs.Figures
	}
	if len(figures) != len(want) {
		t.Errorf("checks scored: %v", figures)
	}
	for name, w := range want {
		f := figures[name]
		if got := (row{f.Bugs, f.OK, f.TP, f.Missed(), f.FP}); got != w {
			t.Errorf("%s: got %+v, want %+v", name, got, w)
		}
	}
	if p, _ := r.All.Precision(); p != 2.0/9 {
		t.Errorf("precision = %v, want 2/9", p)
	}
	if rc, _ := r.All.Recall(); rc != 2.0/3 {
		t.Errorf("recall = %v, want 2/3", rc)
	}
	if cs := r.Check("checkthenact"); len(cs.Misses) != 1 || cs.Misses[0].Name != "Bug2" {
		t.Errorf("checkthenact misses: %v", cs.Misses)
	}

	var b strings.Builder
	if err := WriteTable(&b, r, true); err != nil {
		t.Fatal(err)
	}
	wantTable := `check             bugs    ok  found  missed   FP  precision  recall
checkthenact         2     1      1       1    3       0.25    0.50
attemptkey           1     0      1       0    1       0.50    1.00
releaseonerror       0     1      0       0    1       0.00       -
cacheresponse        0     0      0       0    1       0.00       -
newcheck             0     0      0       0    1       0.00       -
all                  3     2      2       1    7       0.22    0.66
h/h.go:31: missed: checkthenact Bug2
h/h.go:12: false positive: checkthenact in OK1 (ok checkthenact): checkthenact says so
h/h.go:26: false positive: checkthenact outside every scenario: checkthenact says so
h/h.go:29: false positive: checkthenact outside every scenario: checkthenact says so
h/other.go:4: false positive: attemptkey outside every scenario: attemptkey says so
h/h.go:21: false positive: releaseonerror in S.Fresh (ok releaseonerror): releaseonerror says so
h/h.go:21: false positive: cacheresponse in S.Fresh (bug attemptkey, ok releaseonerror): cacheresponse says so
h/h.go:32: false positive: newcheck in Bug2 (bug checkthenact): newcheck says so
`
	if b.String() != wantTable {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), wantTable)
	}
}

func TestScoreEmpty(t *testing.T) {
	t.Parallel()
	r := Score(&Corpus{Dir: "/c", Checks: checks}, nil)
	var b strings.Builder
	if err := WriteTable(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "all                  0     0      0       0    0          -       -\n") {
		t.Errorf("table of an empty corpus:\n%s", b.String())
	}
}
