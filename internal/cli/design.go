package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
	"github.com/idemkit/idemkit/knowledge"
)

// DesignOptions are the inputs of idemkit design.
type DesignOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Operation   string // positional OPERATION
	AnswersFile string
	FromSpec    string
	Preset      string
	OutDir      string
	RulesFile   string
	Print       bool
	Force       bool
	Accessible  bool
	// Generate is the directory to write the spec's handler into afterwards (--generate).
	Generate string

	factory *Factory
}

// NewCmdDesign builds idemkit design. runF replaces the run function in
// tests of flag handling.
func NewCmdDesign(f *Factory, runF func(*DesignOptions) error) *cobra.Command {
	opts := &DesignOptions{IO: f.IO, factory: f}
	cmd := &cobra.Command{
		Use:   "design [OPERATION]",
		Short: "Design the idempotency of one operation and write its spec",
		Long: `Walk through the six questions — who supplies the key, the canonical request
hash, where keys are stored, the TTL, what each collision gets, how the key
threads through downstream side effects — and write the resulting spec to
knowledge/projects/idempotency-<operation>.md.

On a terminal the questions are an interactive form; elsewhere pass the
answers as a file with --answers. --preset starts from a common pattern;
with --answers too, the file's answers win over the preset's. --from
reopens a spec and writes it back in place.

Beside the specs, design writes ../patterns/idempotency-patterns.md, the
page every spec links, once: a copy already there is never overwritten.
'idemkit specs' validates the specs and keeps their index page.`,
		Example: `  idemkit design "charge card"
  idemkit design --answers charge-card.yaml
  idemkit design --preset webhook "stripe events" --print
  idemkit design --from knowledge/projects/idempotency-charge-card.md
  idemkit design --preset payment "charge card" --generate internal/payments`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Operation = args[0]
			}
			opts.Ctx = cmd.Context()
			if !cmd.Flags().Changed("accessible") && f.Getenv != nil {
				opts.Accessible = f.Getenv("ACCESSIBLE") != ""
			}
			if opts.AnswersFile != "" && opts.FromSpec != "" {
				return usageErr("--answers and --from both give the answers; pass one")
			}
			if opts.Generate != "" && opts.Print {
				return usageErr("--generate writes the handler beside the spec; it cannot be combined with --print")
			}
			if runF != nil {
				return runF(opts)
			}
			return designRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.AnswersFile, "answers", "", "read the answers from a YAML `FILE` instead of asking")
	fl.StringVar(&opts.FromSpec, "from", "", "reopen the answers of an existing `SPEC.md` for editing, and write it back in place")
	fl.StringVar(&opts.Preset, "preset", "", "start from a common pattern (`NAME`: payment, webhook, queue, workflow, cron, or a team preset from .idemkit.yaml); --answers wins over it")
	fl.StringVar(&opts.OutDir, "out", filepath.Join("knowledge", "projects"), "`DIR` to write the spec into")
	fl.StringVar(&opts.RulesFile, "rules", "", "catalogue overrides `FILE` (default: .idemkit.yaml at the repository root)")
	fl.BoolVar(&opts.Print, "print", false, "write the spec to stdout only")
	fl.BoolVar(&opts.Force, "force", false, "overwrite an existing spec (and, with --generate, hand-edited generated files)")
	fl.StringVar(&opts.Generate, "generate", "", "then write the handler that follows the spec into `DIR` (as 'idemkit generate handler' does)")
	fl.BoolVar(&opts.Accessible, "accessible", false, "plain prompts for screen readers and simple terminals (also ACCESSIBLE=1)")
	_ = cmd.RegisterFlagCompletionFunc("preset", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		cat, err := loadCatalog(f, opts.RulesFile)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return cat.PresetIDs(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

func designRun(opts *DesignOptions) error {
	f := opts.factory
	cat, err := loadCatalog(f, opts.RulesFile)
	if err != nil {
		return err
	}
	a, interactive, err := designAnswers(opts, cat)
	if err != nil {
		return err
	}
	var d design.Design
	if interactive {
		var ok bool
		target := func(slug string) string {
			if opts.Print {
				return "it to stdout"
			}
			return filepath.Join(opts.OutDir, spec.FileName(slug))
		}
		if !opts.Accessible {
			// Asked now, before Bubble Tea holds the terminal, so the form's
			// colours suit a light background too.
			opts.IO.AskBackground()
		}
		d, ok, err = runDesignForm(opts, cat, &a, target)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintln(opts.IO.ErrOut, "Nothing written.")
			return &ExitError{Code: ExitAborted, Err: errSilent}
		}
	} else if d, err = decide(a, cat); err != nil {
		return err
	}
	if !interactive {
		for _, n := range d.Notes {
			fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
		}
	}
	doc, err := templates.RenderSpec(d.Spec)
	if err != nil {
		return fmt.Errorf("render spec: %w", err)
	}
	if opts.Print {
		return printSpec(opts.IO, doc, opts.OutDir)
	}
	path := filepath.Join(f.resolve(opts.OutDir), spec.FileName(d.Spec.Slug))
	// With --generate the handler is planned first, so that a DIR it cannot use leaves the spec
	// unwritten too.
	var handler *handlerPlan
	if opts.Generate != "" {
		gen := &GenerateHandlerOptions{IO: opts.IO, Spec: f.rel(path), Dir: opts.Generate, Force: opts.Force, factory: f}
		if handler, err = planHandler(gen, d.Spec, path); err != nil {
			return err
		}
		if err := handler.conflicts(); err != nil {
			return err
		}
	}
	// --from reopens a spec to change it: writing it back in place is what
	// was asked for, so it needs no --force.
	force := opts.Force || opts.FromSpec != "" && sameFile(f.resolve(opts.FromSpec), path)
	if err := writeFileAtomic(path, doc, force); err != nil {
		if errors.Is(err, errExists) {
			return usageErr("%s already exists; pass --force to overwrite it, or --print to see the new spec", f.rel(path))
		}
		return fmt.Errorf("write spec: %w", err)
	}
	fmt.Fprintf(opts.IO.Out, "Wrote %s\n", f.rel(path))
	if err := writePatterns(f, filepath.Dir(path), opts.IO); err != nil {
		return err
	}
	if handler != nil {
		return handler.apply()
	}
	return nil
}

// designAnswers gathers the starting answers from the flags and says
// whether the form must still ask for them.
func designAnswers(opts *DesignOptions, cat *rules.Catalog) (a design.Answers, interactive bool, err error) {
	f := opts.factory
	if opts.Preset != "" {
		// Applied first, so that an answers file (or a spec's answers) can
		// be read over it; a spec read with --from gets the preset applied
		// again below, as before.
		if err := design.ApplyPreset(cat, opts.Preset, &a); err != nil {
			return a, false, usageErr("--preset: %v", err)
		}
	}
	switch {
	case opts.AnswersFile != "":
		data, err := os.ReadFile(f.resolve(opts.AnswersFile))
		if err != nil {
			return a, false, usageErr("read answers: %v", err)
		}
		preset := a.Preset
		if a, err = design.ParseAnswersOver(data, a); err != nil {
			return a, false, usageErr("%s:%s", opts.AnswersFile, strings.TrimPrefix(locate(err), "line "))
		}
		if a.Preset == "" {
			a.Preset = preset
		}
	case opts.FromSpec != "":
		data, err := os.ReadFile(f.resolve(opts.FromSpec))
		if err != nil {
			return a, false, usageErr("read spec: %v", err)
		}
		s, err := spec.Parse(data)
		if err != nil {
			return a, false, usageErr("%s: %v", opts.FromSpec, err)
		}
		a = design.AnswersFromSpec(s, cat)
		if opts.Preset != "" {
			// A preset with --from restarts the spec's design from the
			// preset, keeping its operation and description.
			if err := design.ApplyPreset(cat, opts.Preset, &a); err != nil {
				return a, false, usageErr("--preset: %v", err)
			}
		}
	}
	if opts.Operation != "" {
		a.Operation = opts.Operation
	}
	if opts.AnswersFile != "" {
		return a, false, nil
	}
	if opts.IO.InTTY && opts.IO.OutTTY || opts.Accessible && opts.IO.InTTY {
		return a, true, nil
	}
	if opts.Preset != "" || opts.FromSpec != "" {
		// Fully answered by the preset or the spec: nothing to ask.
		return a, false, nil
	}
	return a, false, usageErr("no terminal to ask the questions on; pass --answers FILE (or --preset NAME to start from a common pattern)")
}

// locate formats an answers error as "LINE: message" or ": message".
func locate(err error) string {
	var ae *design.AnswersError
	if errors.As(err, &ae) && ae.Line > 0 {
		return fmt.Sprintf("%d: %s", ae.Line, ae.Msg)
	}
	return " " + err.Error()
}

// decide runs design.Decide and maps its errors to exit codes: a rejected
// design exits 1, unusable answers exit 2.
func decide(a design.Answers, cat *rules.Catalog) (design.Design, error) {
	d, err := design.Decide(a, cat)
	var rej *design.RejectedError
	switch {
	case errors.As(err, &rej):
		return d, &ExitError{Code: ExitFindings, Err: err}
	case err != nil:
		return d, &ExitError{Code: ExitUsage, Err: err}
	}
	return d, nil
}

// writePatterns writes the patterns page every spec links beside the
// specs, once: a copy already there, edited or not, is left alone.
func writePatterns(f *Factory, dir string, io *IOStreams) error {
	patterns := filepath.Join(dir, filepath.FromSlash(spec.PatternsLink))
	switch err := writeFileAtomic(patterns, knowledge.Patterns, false); {
	case err == nil:
		fmt.Fprintln(io.Out, wrap(fmt.Sprintf("Wrote %s (the patterns every spec links; edit it freely, idemkit never overwrites it)", f.rel(patterns)), io.Width))
	case !errors.Is(err, errExists):
		return fmt.Errorf("write patterns: %w", err)
	}
	return nil
}

// sameFile reports whether two paths name one file.
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
