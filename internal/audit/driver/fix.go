package driver

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// FixPlan is what applying the suggested fixes would do. Nothing is
// written: the caller writes Files, atomically, and reports the rest.
type FixPlan struct {
	// Files maps each file a fix touches to its new content, gofmt'd.
	Files map[string][]byte
	// Applied are the findings whose fix is in Files.
	Applied []Finding
	// Skipped are the findings whose fix was left out, with the reason.
	Skipped []SkippedFix
}

// SkippedFix is a fix that was not applied.
type SkippedFix struct {
	Finding Finding
	Reason  string
}

// Reasons a fix is skipped. A conflict is not an error: running the audit
// again applies the fix against the edited file if it still applies.
const (
	reasonConflict  = "it overlaps another fix; run idemkit audit --fix again"
	reasonChanged   = "the file changed after it was analysed; run idemkit audit --fix again"
	reasonGenerated = "the file is generated; fix its generator instead"
)

// PlanFixes applies, in memory, the first suggested fix of every finding
// that has one (the first is the one the analyzer recommends). A fix is
// all or nothing: if any of its edits overlaps an edit already taken, or
// touches a generated file or one that changed since it was analysed, the
// whole fix is skipped. An edit identical to one already taken is merged
// rather than counted as a conflict: two findings may well add the same
// ON CONFLICT clause or import. When the fixes to a file are valid one by
// one but not together (the result does not parse), they are all skipped
// and the plan is made again without them. read reads a file's content.
func (r *Result) PlanFixes(read func(string) ([]byte, error)) (*FixPlan, error) {
	cache := make(map[string][]byte)
	readOnce := func(name string) ([]byte, error) {
		if data, ok := cache[name]; ok {
			return data, nil
		}
		data, err := read(name)
		if err != nil {
			return nil, fmt.Errorf("read %s for fixing: %w", name, err)
		}
		cache[name] = data
		return data, nil
	}
	excluded := make(map[int]string) // index into r.Findings -> why
	for {
		plan, bad, err := r.plan(readOnce, excluded)
		if err != nil || len(bad) == 0 {
			return plan, err
		}
		maps.Copy(excluded, bad)
	}
}

// plan makes one attempt at a FixPlan, leaving out the excluded findings'
// fixes. bad names the findings whose fixes broke a file together.
func (r *Result) plan(read func(string) ([]byte, error), excluded map[int]string) (_ *FixPlan, bad map[int]string, _ error) {
	plan := &FixPlan{Files: make(map[string][]byte)}
	type file struct {
		content []byte
		edits   []Edit
		skip    string // why no fix may touch it, if any
		fixes   []int  // the findings whose fixes are in edits
	}
	files := make(map[string]*file)
	load := func(name string) (*file, error) {
		if f, ok := files[name]; ok {
			return f, nil
		}
		data, err := read(name)
		if err != nil {
			return nil, err
		}
		f := &file{content: data}
		switch size, ok := r.fileSizes[name]; {
		case !ok || size != len(data):
			f.skip = reasonChanged
		case isGenerated(name, data):
			f.skip = reasonGenerated
		}
		files[name] = f
		return f, nil
	}

	applied := make(map[int]bool)
	for i, fd := range r.Findings {
		if len(fd.Fixes) == 0 {
			continue
		}
		if why, ok := excluded[i]; ok {
			plan.Skipped = append(plan.Skipped, SkippedFix{fd, why})
			continue
		}
		var add []Edit // the edits of this fix not already taken
		why := ""
		for _, e := range fd.Fixes[0].Edits {
			f, err := load(e.Filename)
			if err != nil {
				return nil, nil, err
			}
			why = f.skip
			if why == "" && (e.Start < 0 || e.End < e.Start || e.End > len(f.content)) {
				why = reasonChanged
			}
			if why == "" {
				dup, clash := against(slices.Concat(f.edits, add), e)
				if clash {
					why = reasonConflict
				} else if !dup {
					add = append(add, e)
				}
			}
			if why != "" {
				break
			}
		}
		if why != "" {
			plan.Skipped = append(plan.Skipped, SkippedFix{fd, why})
			continue
		}
		for _, e := range add {
			files[e.Filename].edits = append(files[e.Filename].edits, e)
		}
		for _, e := range fd.Fixes[0].Edits {
			if f := files[e.Filename]; !slices.Contains(f.fixes, i) {
				f.fixes = append(f.fixes, i)
			}
		}
		applied[i] = true
	}

	bad = make(map[int]string)
	for name, f := range files {
		if len(f.edits) == 0 {
			continue
		}
		out := apply(f.content, f.edits)
		if strings.HasSuffix(name, ".go") {
			formatted, err := format.Source(out)
			if err != nil {
				// Blame the fixes that break the file on their own; if
				// none does, it is the combination, and all of them go.
				culprits := make(map[int]string)
				for _, i := range f.fixes {
					alone := slices.DeleteFunc(slices.Clone(r.Findings[i].Fixes[0].Edits), func(e Edit) bool { return e.Filename != name })
					if _, err := format.Source(apply(f.content, alone)); err != nil {
						culprits[i] = fmt.Sprintf("it does not give valid Go in %s (%v)", filepath.Base(name), err)
					}
				}
				if len(culprits) == 0 {
					for _, i := range f.fixes {
						culprits[i] = fmt.Sprintf("together with the other fixes to %s it does not give valid Go (%v)", filepath.Base(name), err)
					}
				}
				maps.Copy(bad, culprits)
				continue
			}
			out = formatted
		}
		plan.Files[name] = out
	}
	for i, fd := range r.Findings {
		if applied[i] {
			plan.Applied = append(plan.Applied, fd)
		}
	}
	return plan, bad, nil
}

// against compares e with the edits already taken in its file: dup when
// one of them is the very same edit, clash when one overlaps it.
func against(taken []Edit, e Edit) (dup, clash bool) {
	for _, t := range taken {
		if t == e {
			return true, false
		}
		if overlaps(t, e) {
			return false, true
		}
	}
	return false, false
}

// overlaps reports whether two edits to one file touch the same bytes, or
// insert different text at the same offset (whose order would be a guess).
func overlaps(a, b Edit) bool {
	if a.Filename != b.Filename {
		return false
	}
	if a.Start == a.End && b.Start == b.End {
		return a.Start == b.Start
	}
	return a.Start < b.End && b.Start < a.End
}

// apply returns content with edits applied; edits do not overlap.
func apply(content []byte, edits []Edit) []byte {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(a, b Edit) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	var out []byte
	last := 0
	for _, e := range edits {
		out = append(out, content[last:e.Start]...)
		out = append(out, e.New...)
		last = e.End
	}
	return append(out, content[last:]...)
}

// isGenerated reports whether a Go file says it is generated ("// Code
// generated ... DO NOT EDIT."), which go vet -fix also leaves alone.
func isGenerated(name string, content []byte) bool {
	if !strings.HasSuffix(name, ".go") {
		return false
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, content, parser.PackageClauseOnly|parser.ParseComments)
	return err == nil && ast.IsGenerated(f)
}
