package score

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Floor holds the lowest precision and recall each check (and "all") may
// score on the corpus, so that a change that makes the audit worse on it
// fails a test instead of passing unnoticed.
type Floor map[string]Minimum

// Minimum is one line of a floor.
type Minimum struct {
	Precision, Recall float64
}

// ParseFloor reads a floor file: "CHECK PRECISION RECALL" per line, "all"
// for the overall figures, "#" comments and blank lines ignored. name is
// the file's name for errors.
func ParseFloor(r io.Reader, name string) (Floor, error) {
	floor := make(Floor)
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		if len(words) != 3 {
			return nil, fmt.Errorf("%s:%d: %q is not a floor line; write CHECK PRECISION RECALL, e.g. \"checkthenact 0.90 0.80\"", name, n, strings.TrimSpace(line))
		}
		var m Minimum
		for i, v := range []*float64{&m.Precision, &m.Recall} {
			f, err := strconv.ParseFloat(words[1+i], 64)
			if err != nil || f < 0 || f > 1 {
				return nil, fmt.Errorf("%s:%d: %q is not a ratio; write a number from 0 to 1, e.g. 0.85", name, n, words[1+i])
			}
			*v = f
		}
		if _, dup := floor[words[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s has a floor already; keep one line per check", name, n, words[0])
		}
		floor[words[0]] = m
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return floor, nil
}

// Below lists, one sentence each, the figures of r under the floor. A
// figure that is undefined (no bugs left to find, nothing reported) counts
// as 0, so a check whose scenarios vanished fails a floor above 0. A check
// the floor names that r does not score is reported too.
func (r *Report) Below(floor Floor) []string {
	var out []string
	check := func(name string, f Figures) {
		m, ok := floor[name]
		if !ok {
			return
		}
		p, _ := f.Precision()
		rc, _ := f.Recall()
		// A figure equal to the floor passes, whatever the float error.
		const eps = 1e-9
		if p < m.Precision-eps {
			out = append(out, fmt.Sprintf("%s: precision %.2f is below the floor %.2f (TP %d, FP %d)", name, p, m.Precision, f.TP, f.FP))
		}
		if rc < m.Recall-eps {
			out = append(out, fmt.Sprintf("%s: recall %.2f is below the floor %.2f (%d of %d bugs found)", name, rc, m.Recall, f.TP, f.Bugs))
		}
	}
	seen := map[string]bool{"all": true}
	for _, cs := range r.Checks {
		seen[cs.Check] = true
		check(cs.Check, cs.Figures)
	}
	check("all", r.All)
	for _, name := range slices.Sorted(maps.Keys(floor)) {
		if !seen[name] {
			out = append(out, fmt.Sprintf("%s: in the floor but not a check of the corpus", name))
		}
	}
	return out
}
