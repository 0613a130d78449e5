// Package report is how idemkit's checks speak: every finding goes
// through a Reporter, which drops those an //idemkit:ignore directive
// silences, and every check's help text comes from its entry in the rules
// catalogue.
//
// Filtering happens here, inside each analyzer, rather than in a driver,
// because under go vet there is no driver of ours: unitchecker prints
// whatever the analyzers report.
//
// # Ignore directives
//
//	//idemkit:ignore checkthenact the table has no unique index to race on
//
// on the finding's line or the line above silences that check's findings
// on that line. Several checks may be named, comma-separated. The reason
// is required: a directive without one silences nothing and is reported
// by the check it names, so a silenced finding always says why. A
// directive naming no known check is reported once, by the catalogue's
// check whose name is nearest (a typo is then reported by the check it
// meant, and an empty name by the shortest-named check).
package report

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/rules"
)

// Analyzer reads the package's ignore directives once for all checks.
// Every check Requires it and reports through New.
var Analyzer = &analysis.Analyzer{
	Name:       "idemkitignore",
	Doc:        "reads //idemkit:ignore directives for idemkit's checks",
	Run:        run,
	ResultType: reflect.TypeFor[*Ignores](),
}

// Ignore is one //idemkit:ignore directive.
type Ignore struct {
	Pos    token.Pos
	End    token.Pos
	Checks []string // as written
	Reason string
	file   string
	line   int
}

// Ignores are a package's ignore directives.
type Ignores struct {
	list   []*Ignore
	byLine map[fileLine][]*Ignore
}

type fileLine struct {
	file string
	line int
}

const prefix = "//idemkit:ignore"

func run(pass *analysis.Pass) (any, error) {
	ig := &Ignores{byLine: map[fileLine][]*Ignore{}}
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				d, ok := parse(c)
				if !ok {
					continue
				}
				p := pass.Fset.Position(c.Pos())
				d.file, d.line = p.Filename, p.Line
				ig.list = append(ig.list, d)
				ig.byLine[fileLine{d.file, d.line}] = append(ig.byLine[fileLine{d.file, d.line}], d)
			}
		}
	}
	return ig, nil
}

// parse reads "//idemkit:ignore name[,name] reason".
func parse(c *ast.Comment) (*Ignore, bool) {
	rest, ok := strings.CutPrefix(c.Text, prefix)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return nil, false
	}
	fields := strings.Fields(rest)
	d := &Ignore{Pos: c.Pos(), End: c.End()}
	if len(fields) > 0 {
		d.Checks = strings.Split(fields[0], ",")
		d.Reason = strings.Join(fields[1:], " ")
	}
	return d, true
}

// Reporter reports one check's findings.
type Reporter struct {
	pass    *analysis.Pass
	ignores *Ignores
}

// New returns pass's Reporter and reports the ignore directives addressed
// to pass's check that cannot silence anything: those without a reason,
// and those naming an unknown check whose nearest known name is this one.
// pass's analyzer must Require Analyzer.
func New(pass *analysis.Pass) *Reporter {
	r := &Reporter{pass: pass, ignores: pass.ResultOf[Analyzer].(*Ignores)}
	name := pass.Analyzer.Name
	for _, d := range r.ignores.list {
		if len(d.Checks) == 0 {
			if nearest("") == name {
				pass.Report(analysis.Diagnostic{Pos: d.Pos, End: d.End,
					Message: fmt.Sprintf("%s names no check; write %s CHECK REASON (%s)", prefix, prefix, name)})
			}
			continue
		}
		for _, c := range d.Checks {
			switch {
			case c == name && d.Reason == "":
				pass.Report(analysis.Diagnostic{Pos: d.Pos, End: d.End,
					Message: fmt.Sprintf("%s %s has no reason, so it silences nothing; say why the finding does not apply: %s %s REASON (%s)",
						prefix, c, prefix, c, name)})
			case !known(c) && nearest(c) == name:
				pass.Report(analysis.Diagnostic{Pos: d.Pos, End: d.End,
					Message: fmt.Sprintf("%s names %q, which is no idemkit check (known: %s); did you mean %s? (%s)",
						prefix, c, strings.Join(checkNames(), ", "), name, name)})
			}
		}
	}
	return r
}

// Report reports d unless a directive with a reason names this check on
// d's line or the line above.
func (r *Reporter) Report(d analysis.Diagnostic) {
	p := r.pass.Fset.Position(d.Pos)
	for _, line := range []int{p.Line, p.Line - 1} {
		for _, ig := range r.ignores.byLine[fileLine{p.Filename, line}] {
			if ig.Reason != "" && slices.Contains(ig.Checks, r.pass.Analyzer.Name) {
				return
			}
		}
	}
	r.pass.Report(d)
}

// Reportf reports a finding at rng with a formatted message.
func (r *Reporter) Reportf(rng analysis.Range, format string, args ...any) {
	r.Report(analysis.Diagnostic{Pos: rng.Pos(), End: rng.End(), Message: fmt.Sprintf(format, args...)})
}

// Doc returns the help text of the named check, built from its entry in
// the rules catalogue so that go vet's help, idemkit rules and the README
// say the same thing: the title as the summary line, then why it matters,
// what to do instead, and the bad and good examples. It panics when the
// catalogue has no entry: each check's tests load its Analyzer, so a
// check without documentation cannot pass them.
func Doc(name string) string {
	c, ok := rules.DefaultCheck(name)
	if !ok {
		panic("report: no entry for check " + name + " in internal/rules/catalog/checks.yaml")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n%s\n\nFix: %s\n\nReported:\n\n%s\nInstead:\n\n%s", c.Title, c.Why, c.Fix, indent(c.Bad), indent(c.Good))
	return b.String()
}

func indent(code string) string {
	var b strings.Builder
	for line := range strings.Lines(code) {
		if strings.TrimSpace(line) != "" {
			b.WriteString("\t")
		}
		b.WriteString(line)
	}
	s := b.String()
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

func checkNames() []string {
	var names []string
	for _, c := range rules.DefaultChecks() {
		names = append(names, c.ID)
	}
	return names
}

func known(name string) bool {
	_, ok := rules.DefaultCheck(name)
	return ok
}

// nearest returns the catalogue's check whose name is nearest to name by
// edit distance, the first in catalogue order on a tie.
func nearest(name string) string {
	best, bestDist := "", -1
	for _, c := range checkNames() {
		if d := rules.Distance(name, c); bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}
