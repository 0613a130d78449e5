package driver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/token"
	"io"
	"strings"
)

// WriteText writes one line per finding, "file:line:col: name: message",
// with the file relative to dir, so that editors and grep can jump to it
// and the analyzer's name says which rule (and which //idemkit:ignore) it
// is. The places a finding involves follow on indented lines, as go vet
// prints them.
//
// The checks end their messages with their name in parentheses, for plain
// go vet output, which drops analyzer names; here the name leads the line,
// so that ending is left off and the line names its check once.
func WriteText(w io.Writer, findings []Finding, dir string) error {
	bw := bufio.NewWriter(w)
	for _, f := range findings {
		msg := strings.TrimSuffix(f.Message, " ("+f.Analyzer+")")
		fmt.Fprintf(bw, "%s: %s: %s\n", position(f.Pos, dir), f.Analyzer, msg)
		for _, r := range f.Related {
			fmt.Fprintf(bw, "\t%s: %s\n", position(r.Pos, dir), r.Message)
		}
	}
	return bw.Flush()
}

func position(p token.Position, dir string) string {
	if !p.IsValid() {
		return "-"
	}
	p.Filename = relFile(p.Filename, dir)
	return p.String()
}

// The JSON types below repeat the schema of go vet -json (x/tools'
// driverutil.JSONTree, which is internal) so that tools reading vet's
// output read ours: package ID -> analyzer name -> diagnostics or error.

type jsonDiagnostic struct {
	Category       string        `json:"category,omitempty"`
	Posn           string        `json:"posn"`
	End            string        `json:"end"`
	Message        string        `json:"message"`
	SuggestedFixes []jsonFix     `json:"suggested_fixes,omitempty"`
	Related        []jsonRelated `json:"related,omitempty"`
}

type jsonFix struct {
	Message string     `json:"message"`
	Edits   []jsonEdit `json:"edits"`
}

type jsonEdit struct {
	Filename string `json:"filename"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	New      string `json:"new"`
}

type jsonRelated struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
}

type jsonError struct {
	Err string `json:"error"`
}

// WriteJSON writes the result in the shape of go vet -json: positions
// with absolute file names, as vet gives them, and an {"error": ...}
// entry where an analyzer failed on a package. A package that did not
// load (or a pattern that matched none) has such an entry under every
// analyzer of the suite (Result.Analyzers), saying why: none of them ran
// on it, and a reader of the JSON alone must not take it for clean.
func WriteJSON(w io.Writer, res *Result) error {
	tree := make(map[string]map[string]any)
	add := func(pkg, analyzer string, v any) {
		m := tree[pkg]
		if m == nil {
			m = make(map[string]any)
			tree[pkg] = m
		}
		m[analyzer] = v
	}
	for _, f := range res.Findings {
		diags, _ := tree[f.Package][f.Analyzer].([]jsonDiagnostic)
		add(f.Package, f.Analyzer, append(diags, toJSON(f)))
	}
	for _, e := range res.Errors {
		if e.Analyzer != "" {
			add(e.Package, e.Analyzer, jsonError{Err: e.Problems[0]})
			continue
		}
		for _, name := range res.Analyzers {
			add(e.Package, name, jsonError{Err: e.Error()})
		}
	}
	data, err := json.MarshalIndent(tree, "", "\t")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

func toJSON(f Finding) jsonDiagnostic {
	d := jsonDiagnostic{
		Category: f.Category,
		Posn:     f.Pos.String(),
		End:      endOr(f.End, f.Pos).String(),
		Message:  f.Message,
	}
	for _, fix := range f.Fixes {
		jf := jsonFix{Message: fix.Message, Edits: []jsonEdit{}}
		for _, e := range fix.Edits {
			jf.Edits = append(jf.Edits, jsonEdit{Filename: e.Filename, Start: e.Start, End: e.End, New: e.New})
		}
		d.SuggestedFixes = append(d.SuggestedFixes, jf)
	}
	for _, r := range f.Related {
		d.Related = append(d.Related, jsonRelated{Posn: r.Pos.String(), End: endOr(r.End, r.Pos).String(), Message: r.Message})
	}
	return d
}

func endOr(end, pos token.Position) token.Position {
	if end.IsValid() {
		return end
	}
	return pos
}
