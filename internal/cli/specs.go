package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
	"github.com/idemkit/idemkit/internal/version"
)

// SpecsOptions are the inputs of idemkit specs.
type SpecsOptions struct {
	IO  *IOStreams
	Dir string

	factory *Factory
}

// NewCmdSpecs builds idemkit specs.
func NewCmdSpecs(f *Factory, runF func(*SpecsOptions) error) *cobra.Command {
	opts := &SpecsOptions{IO: f.IO, factory: f}
	return &cobra.Command{
		Use:   "specs [DIR]",
		Short: "List the idempotency specs and validate their front matter",
		Long: `List every idempotency-*.md spec in DIR (default knowledge/projects) with its
operation, key source, store and TTL, and validate each one's front matter.
Exits 1 when any spec is invalid, so CI can keep the knowledge graph honest.`,
		Example: `  idemkit specs
  idemkit specs docs/knowledge/projects`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = filepath.Join("knowledge", "projects")
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return specsRun(opts)
		},
	}
}

func specsRun(opts *SpecsOptions) error {
	f := opts.factory
	dir := f.resolve(opts.Dir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return usageErr("%s does not exist; write a spec there with 'idemkit design', or name the directory that holds them", opts.Dir)
	}
	if err != nil {
		return usageErr("read %s: %v", opts.Dir, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasPrefix(e.Name(), "idempotency-") && strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		fmt.Fprintf(opts.IO.ErrOut, "No specs (idempotency-*.md) in %s; write one with 'idemkit design'.\n", opts.Dir)
		return nil
	}

	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OPERATION\tKEY SOURCE\tSTORE\tTTL\tFILE")
	invalid := 0
	for _, name := range names {
		path := filepath.Join(dir, name)
		s, problems := checkSpecFile(path, name)
		if len(problems) > 0 {
			invalid++
			for _, p := range problems {
				fmt.Fprintf(opts.IO.ErrOut, "%s: %s\n", f.rel(path), p)
			}
		}
		if s == nil {
			fmt.Fprintf(tw, "?\t?\t?\t?\t%s (invalid)\n", name)
			continue
		}
		src := s.Key.Source
		if s.Key.Provider != "" {
			src += ":" + s.Key.Provider
		}
		store := s.Store.Kind
		if s.Store.AuditRow && store != "postgres" {
			store += " + postgres audit"
		}
		mark := ""
		if len(problems) > 0 {
			mark = " (invalid)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\n", cell(s.Operation), src, store, s.TTL.Duration, name, mark)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	changed, err := writeIndex(dir)
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if changed {
		fmt.Fprintf(opts.IO.ErrOut, "Updated %s\n", f.rel(filepath.Join(dir, indexName)))
	}
	if invalid > 0 {
		return &ExitError{Code: ExitFindings, Err: fmt.Errorf("%d of %d specs invalid", invalid, len(names))}
	}
	return nil
}

// checkSpecFile parses and validates one spec; s is nil when it does not
// parse at all.
func checkSpecFile(path, name string) (s *spec.Spec, problems []string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, []string{err.Error()}
	}
	s, err = spec.Parse(data)
	if err != nil {
		return nil, []string{err.Error()}
	}
	for _, p := range s.Problems() {
		problems = append(problems, p.Error())
	}
	if want := spec.FileName(s.Slug); s.Slug != "" && want != name {
		problems = append(problems, fmt.Sprintf("slug: %q belongs in %s, not %s; rename the file or fix the slug", s.Slug, want, name))
	}
	// The body is rendered from the front matter. Only the idemkit that
	// wrote a spec renders it byte for byte, so only its body is compared.
	if len(problems) == 0 && s.Idemkit == version.String() {
		if doc, err := templates.RenderSpec(s); err == nil && !bytes.Equal(doc, data) {
			problems = append(problems, fmt.Sprintf("body: differs from what the front matter renders to (edited by hand?); change the front matter or the answers, then re-render with: idemkit design --from %s --force", path))
		}
	}
	return s, problems
}

// cell keeps one table cell on one line.
func cell(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// indexName is the index page of a directory of specs.
const indexName = "index.md"

// writeIndex writes the index page of the specs in dir: one row per spec
// with its key source, store, TTL and the specs it calls downstream, and a
// link to the patterns. It writes only when the page would change, and
// reports whether it did. A spec that does not parse is listed by its file
// name, so the index never hides one.
func writeIndex(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false, err
	}
	var b bytes.Buffer
	b.WriteString("# Idempotency specs\n\n")
	b.WriteString("Kept by `idemkit specs` from the specs in this directory; edits are lost.\n")
	b.WriteString("Every spec follows the [idempotency patterns](" + spec.PatternsLink + ").\n\n")
	b.WriteString("| Operation | Key source | Store | TTL | Calls |\n|---|---|---|---|---|\n")
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "idempotency-") || !strings.HasSuffix(name, ".md") {
			continue
		}
		n++
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return false, err
		}
		s, err := spec.Parse(data)
		if err != nil {
			fmt.Fprintf(&b, "| [%s](%s) (does not parse) | | | | |\n", name, name)
			continue
		}
		src := s.Key.Source
		if s.Key.Provider != "" {
			src += " (" + s.Key.Provider + ")"
		}
		var calls []string
		for _, st := range s.Downstream {
			if st.Spec != "" {
				calls = append(calls, fmt.Sprintf("[%s](%s)", indexCell(strings.TrimSuffix(strings.TrimPrefix(st.Spec, "idempotency-"), ".md")), st.Spec))
			}
		}
		fmt.Fprintf(&b, "| [%s](%s) | %s | %s | %s | %s |\n", indexCell(s.Operation), name, indexCell(src), indexCell(s.Store.Kind), s.TTL.Duration, strings.Join(calls, ", "))
	}
	if n == 0 {
		return false, nil
	}
	path := filepath.Join(dir, indexName)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return false, nil
	}
	if err := writeFileAtomic(path, b.Bytes(), true); err != nil {
		return false, err
	}
	return true, nil
}

// indexCell keeps user text from breaking the index's table or links.
func indexCell(s string) string {
	return strings.NewReplacer("|", "\\|", "[", "\\[", "]", "\\]", "<", "&lt;").Replace(cell(s))
}
