package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/audit/driver"
	"github.com/idemkit/idemkit/internal/version"
)

// auditGCPercent is the garbage collector's target while idemkit audit
// runs, unless GOGC says otherwise.
const auditGCPercent = 35

// auditFormats are the values of idemkit audit --format.
var auditFormats = []string{"text", "json", "sarif"}

// AuditOptions are the inputs of idemkit audit.
type AuditOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Patterns []string
	Format   string
	Fix      bool
	// Analyzers is the suite to run: audit.Analyzers, or a stand-in in
	// tests of the command's own behaviour.
	Analyzers []*analysis.Analyzer
	// CacheDir keeps results between runs (auditCacheDir); "" for none.
	CacheDir string

	factory *Factory
}

// NewCmdAudit builds idemkit audit. runF replaces the run function in
// tests of flag handling.
func NewCmdAudit(f *Factory, runF func(*AuditOptions) error) *cobra.Command {
	opts := &AuditOptions{IO: f.IO, Analyzers: audit.Analyzers, factory: f}
	if f.Getenv != nil {
		opts.CacheDir = auditCacheDir(f.Getenv)
	}
	cmd := &cobra.Command{
		Use:   "audit [PACKAGES]",
		Short: "Find idempotency bugs in Go packages",
		Long: `Run idemkit's checks over Go packages (default ./...) and their tests:
a record checked and then written as two steps, a key made fresh for
each attempt, a claim left held on an error path, a key marked done without
the response a replay needs. 'idemkit rules' explains each one.

Findings go to stdout as text (file:line:col: check: message), as go vet
-json does (--format json), or as SARIF 2.1.0 for GitHub code scanning
(--format sarif). --fix applies the fixes the checks suggest and reports
what is left. Silence one finding, saying why, with
'//idemkit:ignore CHECK REASON' on its line or the line above.

A repeat run on unchanged code answers from a cache keyed on everything
that can change the result (this idemkit, the packages, their files and
their dependencies' compiled form), kept in the user cache directory
(idemkit/ under it); IDEMKIT_CACHE=DIR moves it, IDEMKIT_CACHE=off turns
it off.

The same checks run under go vet:
  go vet -vettool=$(command -v idemkit) ./...

Exit status: 0 clean, 1 findings, 2 bad usage (a flag, a pattern that
matches no package), 3 a package that could not be loaded or type-checked
(the others are still audited) or fixes that could not be written.`,
		Example: `  idemkit audit
  idemkit audit ./internal/payments/...
  idemkit audit --format sarif > idemkit.sarif
  idemkit audit --fix`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			opts.Patterns = args
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "output format: "+strings.Join(auditFormats, ", "))
	cmd.Flags().BoolVar(&opts.Fix, "fix", false, "apply the suggested fixes, then report the findings that remain")
	return cmd
}

func auditRun(opts *AuditOptions) error {
	f := opts.factory
	if !slices.Contains(auditFormats, opts.Format) {
		return usageErr("unknown --format %q; use one of %s", opts.Format, strings.Join(auditFormats, ", "))
	}
	if f.Getenv == nil || f.Getenv("GOGC") == "" {
		// The audit holds the user code's syntax and types while it
		// analyses, and makes much short-lived garbage: collecting when
		// the heap has grown by a third of what is live, not all of it,
		// keeps the peak well under staticcheck's on the same module
		// (blnk, 88k lines: 409-417 MB at GOGC=100, 275-286 MB at 35;
		// staticcheck 321-371 MB) for about a fifth more CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(auditGCPercent))
	}
	run := driver.Options{Dir: f.Dir, Patterns: opts.Patterns, Analyzers: opts.Analyzers}
	if opts.CacheDir != "" {
		run.Cache, run.Build = auditCache{dir: opts.CacheDir}, buildID()
	}
	progress := &auditProgress{w: opts.IO.ErrOut}
	if opts.IO.ErrTTY {
		run.Progress = progress.show
	}
	res, err := driver.Run(opts.Ctx, run)
	progress.clear()
	if errors.Is(err, driver.ErrNoPackages) {
		return usageErr("%v: no Go code there (patterns are resolved in %s)", err, f.Dir)
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}

	findings := res.Findings
	if opts.Fix {
		if findings, err = applyFixes(opts, res); err != nil {
			return err
		}
	}

	out := *res
	out.Findings = findings
	switch opts.Format {
	case "json":
		err = driver.WriteJSON(opts.IO.Out, &out)
	case "sarif":
		err = driver.WriteSARIF(opts.IO.Out, &out, driver.SARIFOptions{
			Dir: f.Dir, ToolVersion: version.String(), Analyzers: opts.Analyzers, ReadFile: os.ReadFile,
		})
	default:
		err = driver.WriteText(opts.IO.Out, findings, f.Dir)
	}
	if err != nil {
		return err
	}

	for _, e := range res.Errors {
		fmt.Fprintf(opts.IO.ErrOut, "idemkit: %s\n", e)
	}
	if len(res.Errors) > 0 {
		var whole, tests int
		for _, e := range res.Errors {
			if e.Tests {
				tests++
			} else {
				whole++
			}
		}
		var parts []string
		if whole > 0 {
			parts = append(parts, countOf(whole, "package")+" not audited")
		}
		if tests > 0 {
			parts = append(parts, "the tests of "+countOf(tests, "package")+" not audited")
		}
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s; %s", strings.Join(parts, ", "), countOf(len(findings), "finding"))}
	}
	count := fmt.Sprintf("%s in %s", countOf(len(findings), "finding"), countOf(res.Packages, "package"))
	if opts.Format == "text" {
		// The last line a reader sees, clean or not; JSON and SARIF say
		// it in their data, and a clean run of theirs stays silent.
		fmt.Fprintln(opts.IO.ErrOut, count)
		if len(findings) > 0 {
			return &ExitError{Code: ExitFindings, Err: errSilent}
		}
		return nil
	}
	if len(findings) > 0 {
		return &ExitError{Code: ExitFindings, Err: errors.New(count)}
	}
	return nil
}

// applyFixes writes the planned fixes, each file atomically, says what it
// did and what it left out, and returns the findings that remain.
func applyFixes(opts *AuditOptions, res *driver.Result) ([]driver.Finding, error) {
	f := opts.factory
	plan, err := res.PlanFixes(os.ReadFile)
	if err != nil {
		return nil, &ExitError{Code: ExitFailure, Err: err}
	}
	files := make([]string, 0, len(plan.Files))
	for name := range plan.Files {
		files = append(files, name)
	}
	slices.Sort(files)
	for _, name := range files {
		if err := writeFileAtomic(name, plan.Files[name], true); err != nil {
			return nil, &ExitError{Code: ExitFailure, Err: fmt.Errorf("write fixes to %s: %w", f.rel(name), err)}
		}
	}
	for _, s := range plan.Skipped {
		fmt.Fprintf(opts.IO.ErrOut, "%s:%d:%d: %s: fix not applied: %s\n", f.rel(s.Finding.Pos.Filename), s.Finding.Pos.Line, s.Finding.Pos.Column, s.Finding.Analyzer, s.Reason)
	}
	if len(plan.Applied) > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "Fixed %s in %s.\n", countOf(len(plan.Applied), "finding"), countOf(len(files), "file"))
	}
	fixed := make(map[string]bool)
	for _, a := range plan.Applied {
		fixed[findingKey(a)] = true
	}
	var remaining []driver.Finding
	for _, fd := range res.Findings {
		if !fixed[findingKey(fd)] {
			remaining = append(remaining, fd)
		}
	}
	return remaining, nil
}

func findingKey(f driver.Finding) string {
	return fmt.Sprintf("%s\x00%s\x00%s", f.Pos, f.Analyzer, f.Message)
}

// countOf writes n with noun, in the plural unless n is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
