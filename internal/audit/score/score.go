package score

import (
	"cmp"
	"fmt"
	"go/token"
	"io"
	"math"
	"path/filepath"
	"slices"

	"github.com/idemkit/idemkit/internal/audit/driver"
)

// Figures are the counts precision and recall come from.
type Figures struct {
	// Bugs counts the bug scenarios, TP those with a finding of their check.
	Bugs, TP int
	// OK counts the look-alike scenarios.
	OK int
	// FP counts the scenarios with a finding of a check they are not a bug
	// of, plus the findings outside every scenario.
	FP int
}

// Missed is the number of bug scenarios without a finding of their check.
func (f Figures) Missed() int { return f.Bugs - f.TP }

// Precision is TP / (TP + FP); ok is false when nothing was reported.
func (f Figures) Precision() (p float64, ok bool) { return ratio(f.TP, f.TP+f.FP) }

// Recall is TP / Bugs; ok is false when there are no bugs to find.
func (f Figures) Recall() (r float64, ok bool) { return ratio(f.TP, f.Bugs) }

func ratio(n, d int) (float64, bool) {
	if d == 0 {
		return 0, false
	}
	return float64(n) / float64(d), true
}

func (f *Figures) add(g Figures) {
	f.Bugs += g.Bugs
	f.TP += g.TP
	f.OK += g.OK
	f.FP += g.FP
}

// CheckScore is one check's figures and the cases behind its errors.
type CheckScore struct {
	Check string
	Figures
	// Misses are the bug scenarios it found nothing in.
	Misses []*Scenario
	// FalsePositives are its findings that count against it, one per
	// scenario (the first finding there) and each one outside scenarios.
	FalsePositives []FalsePositive
}

// FalsePositive is a finding that counts against its check.
type FalsePositive struct {
	Finding driver.Finding
	// Scenario is the scenario it was attributed to, nil when it lies
	// outside every scenario.
	Scenario *Scenario
}

// Report is the score of one audit run over a corpus.
type Report struct {
	// Dir is the corpus directory; places in the report are relative to it.
	Dir string
	// Checks are in the corpus's order, then any check that reported
	// without being in it.
	Checks []*CheckScore
	// All sums the checks.
	All Figures
}

// Check returns the score of the named check, or nil.
func (r *Report) Check(name string) *CheckScore {
	for _, c := range r.Checks {
		if c.Check == name {
			return c
		}
	}
	return nil
}

// Score attributes each finding to the innermost scenario whose source
// range holds it and scores every check by the corpus README's rules: a
// bug scenario of a check with at least one of its findings is found
// (true positive), otherwise missed; a scenario with a finding of a check
// it is not a bug of is one false positive of that check, however many
// findings it holds; a finding outside every scenario is a false positive.
func Score(c *Corpus, findings []driver.Finding) *Report {
	r := &Report{Dir: c.Dir}
	byCheck := make(map[string]*CheckScore)
	check := func(name string) *CheckScore {
		if cs, ok := byCheck[name]; ok {
			return cs
		}
		cs := &CheckScore{Check: name}
		byCheck[name] = cs
		r.Checks = append(r.Checks, cs)
		return cs
	}
	for _, name := range c.Checks {
		check(name)
	}

	type hit struct {
		s     *Scenario
		check string
	}
	first := make(map[hit]driver.Finding) // the first finding of each check in each scenario
	var order []hit
	loc := newLocator(c)
	for _, f := range findings {
		s := loc.scenario(f.Pos)
		if s == nil {
			cs := check(f.Analyzer)
			cs.FP++
			cs.FalsePositives = append(cs.FalsePositives, FalsePositive{Finding: f})
			continue
		}
		h := hit{s, f.Analyzer}
		if _, ok := first[h]; !ok {
			first[h] = f
			order = append(order, h)
		}
	}
	for _, s := range c.Scenarios {
		for name, kind := range s.Marks {
			cs := check(name)
			if kind == OK {
				cs.OK++
				continue
			}
			cs.Bugs++
			if _, ok := first[hit{s, name}]; ok {
				cs.TP++
			} else {
				cs.Misses = append(cs.Misses, s)
			}
		}
	}
	for _, h := range order {
		if h.s.Marks[h.check] == Bug {
			continue
		}
		cs := check(h.check)
		cs.FP++
		cs.FalsePositives = append(cs.FalsePositives, FalsePositive{Finding: first[h], Scenario: h.s})
	}
	for _, cs := range r.Checks {
		slices.SortStableFunc(cs.FalsePositives, func(a, b FalsePositive) int {
			return cmp.Or(cmp.Compare(a.Finding.Pos.Filename, b.Finding.Pos.Filename), cmp.Compare(a.Finding.Pos.Offset, b.Finding.Pos.Offset))
		})
		r.All.add(cs.Figures)
	}
	return r
}

// locator finds the scenario a position lies in. Findings name files as
// the go command saw them, which may differ from the corpus's own path by
// symbolic links; both sides are compared resolved.
type locator struct {
	byFile   map[string][]*Scenario
	resolved map[string]string
}

func newLocator(c *Corpus) *locator {
	l := &locator{byFile: make(map[string][]*Scenario), resolved: make(map[string]string)}
	for _, s := range c.Scenarios {
		l.byFile[s.File] = append(l.byFile[s.File], s)
	}
	return l
}

func (l *locator) scenario(pos token.Position) *Scenario {
	file, ok := l.resolved[pos.Filename]
	if !ok {
		file = pos.Filename
		if real, err := filepath.EvalSymlinks(file); err == nil {
			file = real
		}
		l.resolved[pos.Filename] = file
	}
	var in *Scenario
	for _, s := range l.byFile[file] {
		if s.Start <= pos.Offset && pos.Offset < s.End && (in == nil || s.End-s.Start < in.End-in.Start) {
			in = s
		}
	}
	return in
}

// WriteTable prints one line per check (bugs, look-alikes, found, missed,
// false positives, precision, recall) and the overall line. verbose adds
// every miss and every false positive with its place and scenario, which
// is what an engineer tuning a check reads.
func WriteTable(w io.Writer, r *Report, verbose bool) error {
	ew := &errWriter{w: w}
	ew.printf("%-16s %5s %5s %6s %7s %4s %10s %7s\n", "check", "bugs", "ok", "found", "missed", "FP", "precision", "recall")
	line := func(name string, f Figures) {
		ew.printf("%-16s %5d %5d %6d %7d %4d %10s %7s\n", name, f.Bugs, f.OK, f.TP, f.Missed(), f.FP, show(f.Precision()), show(f.Recall()))
	}
	for _, cs := range r.Checks {
		line(cs.Check, cs.Figures)
	}
	line("all", r.All)
	if !verbose {
		return ew.err
	}
	for _, cs := range r.Checks {
		for _, s := range cs.Misses {
			ew.printf("%s: missed: %s %s\n", s.Pos(r.Dir), cs.Check, s.Name)
		}
		for _, fp := range cs.FalsePositives {
			p := fp.Finding.Pos
			where := "outside every scenario"
			if s := fp.Scenario; s != nil {
				where = "in " + s.Name + " (" + markOf(s, cs.Check) + ")"
			}
			ew.printf("%s:%d: false positive: %s %s: %s\n", rel(p.Filename, r.Dir), p.Line, cs.Check, where, fp.Finding.Message)
		}
	}
	return ew.err
}

// markOf says what a scenario is, seen from one check: "ok checkthenact",
// or "bug attemptkey" when it is a bug of another check only.
func markOf(s *Scenario, check string) string {
	if k, ok := s.Marks[check]; ok {
		return k.String() + " " + check
	}
	names := make([]string, 0, len(s.Marks))
	for name := range s.Marks {
		names = append(names, name)
	}
	slices.Sort(names)
	out := ""
	for i, name := range names {
		if i > 0 {
			out += ", "
		}
		out += s.Marks[name].String() + " " + name
	}
	return out
}

// show prints a ratio rounded down to two decimals, or "-" when it is
// undefined: rounded down, a figure the table prints can be written into
// the floor as it stands (44 of 49 is 0.89, not 0.90).
func show(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.2f", math.Floor(v*100+1e-9)/100)
}

// errWriter keeps the first write error so a table is written without a
// check after every line.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
