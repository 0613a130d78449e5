package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/genplan"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates"
	"github.com/idemkit/idemkit/internal/version"
)

// GenerateHandlerOptions are the inputs of idemkit generate handler.
type GenerateHandlerOptions struct {
	IO *IOStreams

	Spec    string
	Dir     string
	Package string
	Runtime string
	Check   bool
	Force   bool

	factory *Factory
}

// NewCmdGenerateHandler builds idemkit generate handler. runF replaces the run function in tests
// of flag handling.
func NewCmdGenerateHandler(f *Factory, runF func(*GenerateHandlerOptions) error) *cobra.Command {
	opts := &GenerateHandlerOptions{IO: f.IO, factory: f}
	cmd := &cobra.Command{
		Use:   "handler --spec SPEC.md --dir DIR",
		Short: "Write the code a spec decides into your module",
		Long: `Write the code that follows a spec (knowledge/projects/idempotency-<op>.md) into
DIR, a directory of your Go module, using the runtime 'idemkit generate runtime'
wrote: an HTTP handler behind the Idempotency-Key middleware for a client key, a
webhook receiver for a provider's event ID, a consumer for queue messages, a
step wrapper for a workflow, a job wrapper for cron. The spec's key derivation,
TTL, lease, fingerprint fields, collision answers and one derived key per
downstream step are all in it.

Three files, for an operation with slug charge-card:
  charge_card_idem.go       the wiring: generated, headed "DO NOT EDIT" with a
                            checksum, rewritten when the spec changes
  charge_card_idem_test.go  the spec's five tests (replay, mismatch, concurrent
                            retries, TTL expiry, crash mid-flight) against the
                            memory store: go test passes out of the box
  charge_card_work.go       your business logic: a ChargeCardService whose
                            methods you pass to NewChargeCard, holding the
                            only placeholders; written at the first
                            generation and never again

The runtime is found in your module (the directory holding the files generate
runtime wrote); pass --runtime DIR when there are several. The package is the
one already in DIR, else DIR's name.

A generated file edited by hand is never overwritten without --force. --check
writes nothing and exits 1 when the files differ from what would be generated.

Exit status: 0 done (or up to date), 1 drift found by --check, 2 bad usage
or files edited by hand (nothing written), 3 a file that could not be read
or written.`,
		Example: `  idemkit generate runtime --dir internal/idem
  idemkit generate handler --spec knowledge/projects/idempotency-charge-card.md --dir internal/payments
  idemkit generate handler --spec knowledge/projects/idempotency-charge-card.md --dir internal/payments --check`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case opts.Spec == "":
				return usageErr("--spec is required: the spec to follow, e.g. --spec knowledge/projects/idempotency-charge-card.md")
			case opts.Dir == "":
				return usageErr("--dir is required: the directory of your module to write the handler into, e.g. --dir internal/payments")
			}
			if runF != nil {
				return runF(opts)
			}
			return generateHandlerRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Spec, "spec", "", "the `SPEC.md` to follow (written by idemkit design)")
	fl.StringVar(&opts.Dir, "dir", "", "`DIR` to write the handler into, inside a Go module")
	fl.StringVar(&opts.Package, "package", "", "`NAME` of the package (default: the package already in DIR, else DIR's last element)")
	fl.StringVar(&opts.Runtime, "runtime", "", "`DIR` of the generated runtime's core package (default: found in the module)")
	fl.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 if the files on disk differ from what would be generated")
	fl.BoolVar(&opts.Force, "force", false, "overwrite generated files even if they were edited by hand")
	_ = cmd.MarkFlagFilename("spec", "md")
	_ = cmd.MarkFlagDirname("dir")
	_ = cmd.MarkFlagDirname("runtime")
	return cmd
}

func generateHandlerRun(opts *GenerateHandlerOptions) error {
	data, err := os.ReadFile(opts.factory.resolve(opts.Spec))
	if err != nil {
		return usageErr("read spec: %v", err)
	}
	s, err := spec.Parse(data)
	if err != nil {
		return usageErr("%s: %v", opts.Spec, err)
	}
	p, err := planHandler(opts, s, opts.factory.resolve(opts.Spec))
	if err != nil {
		return err
	}
	if opts.Check {
		return p.plan.Check(opts.IO.Out, p.show)
	}
	return p.apply()
}

// handlerPlan is a generated handler and what writing it would do, decided before anything is
// written, so that design --generate can check it before writing the spec too.
type handlerPlan struct {
	spec    *spec.Spec
	target  *genplan.HandlerTarget
	handler *templates.Handler
	plan    *genplan.Plan
	force   bool
	io      *IOStreams
	show    func(string) string
}

// planHandler generates the handler for s into opts.Dir and compares it with the disk. specPath
// is the spec's file, which need not exist yet; the comments cite it relative to the module.
func planHandler(opts *GenerateHandlerOptions, s *spec.Spec, specPath string) (*handlerPlan, error) {
	f := opts.factory
	t, err := genplan.ResolveHandler(genplan.HandlerRequest{WD: f.Dir, Dir: opts.Dir, Runtime: opts.Runtime, Package: opts.Package})
	if err != nil {
		return nil, err
	}
	h, err := templates.GenerateHandler(s, templates.HandlerOptions{
		Package:        t.Package,
		Runtime:        t.RuntimeImport,
		RuntimePackage: t.RuntimePackage,
		SpecPath:       t.Cite(specPath),
		Dir:            t.Rel(),
		Version:        version.String(),
	})
	var oe *templates.OptionError
	switch {
	case errors.As(err, &oe) && oe.Option == "package":
		return nil, usageErr("--package %q: %s", oe.Value, oe.Reason)
	case errors.As(err, &oe) && oe.Option == "dir":
		return nil, usageErr("--dir %s: %s", opts.Dir, oe.Reason)
	case err != nil:
		return nil, usageErr("%s: %v", opts.Spec, err)
	}
	plan, err := genplan.New(t.Dir, genplan.Files{Generated: h.Files, Once: map[string][]byte{filepath.ToSlash(h.WorkPath): h.Work}})
	if err != nil {
		return nil, err
	}
	return &handlerPlan{spec: s, target: t, handler: h, plan: plan, force: opts.Force, io: opts.IO, show: genplan.Relative(f.Dir)}, nil
}

// conflicts refuses to go on when a generated file was edited by hand or is not idemkit's,
// unless --force.
func (p *handlerPlan) conflicts() error {
	return p.plan.Refuse(p.force, p.show, p.handler.WorkPath)
}

// apply writes the planned files and says what it did and what comes next.
func (p *handlerPlan) apply() error {
	if err := p.conflicts(); err != nil {
		return err
	}
	out := p.io.Out
	n, err := p.plan.Apply(out, p.show)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Generated the %s handler of %s (runtime %s) in %s: %d written, %d unchanged.\n",
		p.handler.Kind, p.spec.Operation, p.target.RuntimeImport, p.show(p.target.Dir), n.Written, n.Unchanged)
	pkg := p.show(p.target.Dir)
	if !filepath.IsAbs(pkg) {
		pkg = "./" + filepath.ToSlash(pkg)
	}
	if len(p.plan.Once) > 0 {
		fmt.Fprintf(out, "Write the operation's code in %s and pass it to %s; the tests run now: go test %s\n",
			p.show(filepath.Join(p.target.Dir, p.handler.WorkPath)), p.handler.Constructor, pkg)
	}
	if p.spec.Store.AuditRow {
		p.auditHint()
	}
	return nil
}

// auditHint says where the audit row the spec keeps comes from, and how to get the Postgres
// store that writes it when the runtime was generated without one.
func (p *handlerPlan) auditHint() {
	out, rt := p.io.Out, p.show(p.target.RuntimeDir)
	var stores []string // those generated into the runtime
	for _, name := range templates.StoreNames() {
		if fi, err := os.Stat(filepath.Join(p.target.RuntimeDir, templates.StoreDir(name))); err == nil && fi.IsDir() {
			stores = append(stores, name)
		}
	}
	if slices.Contains(stores, "postgres") {
		fmt.Fprintf(out, "The spec keeps a Postgres audit row: give %s an Audit from pgstore.NewAuditLog, and run its Migrate at start-up.\n",
			p.handler.Constructor)
		return
	}
	fmt.Fprintf(out, "The spec keeps a Postgres audit row, and the runtime in %s has no Postgres store: add it (idemkit generate runtime --dir %s --stores %s,postgres), then give %s an Audit from pgstore.NewAuditLog. The tests use idem.NewMemoryAuditLog.\n",
		rt, rt, strings.Join(stores, ","), p.handler.Constructor)
}
