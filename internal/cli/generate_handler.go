package cli

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

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
writes nothing and exits 1 when the files differ from what would be generated.`,
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
		return p.check()
	}
	return p.apply()
}

// handlerPlan is a generated handler and what writing it would do, decided before anything is
// written, so that design --generate can check it before writing the spec too.
type handlerPlan struct {
	opts    *GenerateHandlerOptions
	spec    *spec.Spec
	target  string
	handler *templates.Handler
	// runtime is the core package's import path; rtDir its directory.
	runtime, rtDir string
	// changes covers the generated files; work is the skeleton, nil unless this is the first
	// generation.
	changes []change
	work    *change
}

// planHandler generates the handler for s into opts.Dir and compares it with the disk. specPath
// is the spec's file, which need not exist yet; the comments cite it relative to the module.
func planHandler(opts *GenerateHandlerOptions, s *spec.Spec, specPath string) (*handlerPlan, error) {
	f := opts.factory
	target, err := realPath(f.resolve(opts.Dir))
	if err != nil {
		return nil, usageErr("--dir %s: %v", opts.Dir, err)
	}
	if fi, err := os.Stat(target); err == nil && !fi.IsDir() {
		return nil, usageErr("--dir %s is a file, not a directory", opts.Dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, usageErr("--dir %s: %v", opts.Dir, err)
	}
	root, gomod, err := findModule(target)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, target)
	if err != nil {
		return nil, usageErr("--dir %s: %v", opts.Dir, err)
	}
	rtDir, rtPkg, err := opts.findRuntime(root)
	if err != nil {
		return nil, err
	}
	if inside(rtDir, target) {
		return nil, usageErr("--dir %s is inside the runtime's directory %s, whose files idemkit generate runtime owns; choose a directory of its own", opts.Dir, opts.show(rtDir))
	}
	pkg, err := opts.packageName(target)
	if err != nil {
		return nil, err
	}
	rtRel, _ := filepath.Rel(root, rtDir)
	importPath := path.Join(gomod.Module.Mod.Path, filepath.ToSlash(rtRel))
	h, err := templates.GenerateHandler(s, templates.HandlerOptions{
		Package:        pkg,
		Runtime:        importPath,
		RuntimePackage: rtPkg,
		SpecPath:       specRel(root, specPath),
		Dir:            filepath.ToSlash(rel),
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
	p := &handlerPlan{opts: opts, spec: s, target: target, handler: h, runtime: importPath, rtDir: rtDir}
	if p.changes, err = planRuntime(target, &templates.Runtime{Files: h.Files}); err != nil {
		return nil, err
	}
	// The skeleton comes with the first generation only: once the wiring exists, a missing
	// skeleton was moved or deleted by its owner, and the wiring does not need it.
	first := true
	for _, c := range p.changes {
		first = first && c.action == actCreate
	}
	work := filepath.Join(target, h.WorkPath)
	if _, err := os.Lstat(work); first && errors.Is(err, fs.ErrNotExist) {
		p.work = &change{abs: work, action: actCreate, data: h.Work}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return p, nil
}

// specRel is the spec's path as generated comments cite it: relative to the module root, or just
// its name when it lies outside the module, so the generated code never holds a path of one
// machine.
func specRel(root, specPath string) string {
	if real, err := realPath(specPath); err == nil {
		if rel, err := filepath.Rel(root, real); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(specPath)
}

// findRuntime returns the directory and package name of the runtime's core package: --runtime,
// or else the one directory of the module that generate runtime wrote it into.
func (o *GenerateHandlerOptions) findRuntime(root string) (dir, pkg string, err error) {
	if o.Runtime != "" {
		dir, err := realPath(o.factory.resolve(o.Runtime))
		if err != nil {
			return "", "", usageErr("--runtime %s: %v", o.Runtime, err)
		}
		if !inside(root, dir) {
			return "", "", usageErr("--runtime %s is outside the module at %s; the handler imports the runtime from its own module", o.Runtime, o.show(root))
		}
		pkg, ok := runtimeCore(dir)
		if !ok {
			return "", "", usageErr("--runtime %s holds no runtime generated by idemkit (its do.go and store.go); run 'idemkit generate runtime --dir %s' first", o.Runtime, o.Runtime)
		}
		return dir, pkg, nil
	}
	var found []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules") {
			return filepath.SkipDir
		}
		if p != root {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		if _, ok := runtimeCore(p); ok {
			found = append(found, p)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return "", "", usageErr("looking for the runtime in %s: %v", o.show(root), err)
	}
	switch len(found) {
	case 0:
		return "", "", usageErr("no runtime generated by idemkit in the module at %s; run 'idemkit generate runtime --dir internal/idem' first (or pass --runtime DIR)", o.show(root))
	case 1:
		pkg, _ := runtimeCore(found[0])
		return found[0], pkg, nil
	}
	shown := make([]string, len(found))
	for i, d := range found {
		shown[i] = o.show(d)
	}
	return "", "", usageErr("the module has %d generated runtimes (%s); pass --runtime DIR to choose one", len(found), strings.Join(shown, ", "))
}

// runtimeCore reports whether dir holds the core package generate runtime writes, recognised by
// two of its files carrying idemkit's header, and returns the package's name.
func runtimeCore(dir string) (pkg string, ok bool) {
	for _, name := range []string{"store.go", "do.go"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || templates.Inspect(data) == templates.NotGenerated {
			return "", false
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, data, parser.PackageClauseOnly)
		if err != nil {
			return "", false
		}
		pkg = f.Name.Name
	}
	return pkg, true
}

// packageName is --package, or the package the Go files in dir already declare, or dir's name.
// A --package that disagrees with the files already there is refused: the result would not build.
func (o *GenerateHandlerOptions) packageName(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", usageErr("--dir %s: %v", o.Dir, err)
	}
	var existing, from string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		existing, from = f.Name.Name, name
		break
	}
	switch {
	case existing != "" && o.Package != "" && o.Package != existing:
		return "", usageErr("--package %q: %s already holds package %s (%s)", o.Package, o.Dir, existing, from)
	case existing != "":
		return existing, nil
	case o.Package != "":
		return o.Package, nil
	}
	name := filepath.Base(dir)
	if !token.IsIdentifier(name) || token.IsKeyword(name) {
		return "", usageErr("--dir %s: %q cannot name a Go package; pass --package NAME", o.Dir, name)
	}
	return name, nil
}

// show is p as the user should read it.
func (o *GenerateHandlerOptions) show(p string) string {
	return (&GenerateRuntimeOptions{factory: o.factory}).show(p)
}

// check reports drift of the generated files without writing, as generate runtime --check does.
// The skeleton is the user's, so its absence is no drift.
func (p *handlerPlan) check() error {
	return checkRuntime(&GenerateRuntimeOptions{IO: p.opts.IO, factory: p.opts.factory}, p.target, p.changes)
}

// conflicts refuses to go on when a generated file was edited by hand or is not idemkit's,
// unless --force.
func (p *handlerPlan) conflicts() error {
	var refused []string
	for _, c := range p.changes {
		if c.conflict != "" {
			refused = append(refused, fmt.Sprintf("  %s (%s)", p.opts.show(c.abs), c.conflict))
		}
	}
	if len(refused) == 0 || p.opts.Force {
		return nil
	}
	return usageErr("nothing written: these files are not as idemkit generated them, and regenerating would lose their changes:\n%s\nMove your changes into %s, or pass --force to overwrite them.",
		strings.Join(refused, "\n"), p.handler.WorkPath)
}

// apply writes the planned files and says what it did and what comes next.
func (p *handlerPlan) apply() error {
	if err := p.conflicts(); err != nil {
		return err
	}
	out := p.opts.IO.Out
	written, unchanged := 0, 0
	for _, c := range p.changes {
		if c.action == actNone {
			unchanged++
			continue
		}
		if err := writeFileAtomic(c.abs, c.data, c.action == actUpdate); err != nil {
			return fmt.Errorf("write %s: %w", p.opts.show(c.abs), err)
		}
		written++
		fmt.Fprintf(out, "wrote %s\n", p.opts.show(c.abs))
	}
	work := filepath.Join(p.target, p.handler.WorkPath)
	if p.work != nil {
		// Linked into place without overwriting: if the file appeared since the plan, it is kept.
		switch err := writeFileAtomic(p.work.abs, p.work.data, false); {
		case errors.Is(err, errExists):
		case err != nil:
			return fmt.Errorf("write %s: %w", p.opts.show(work), err)
		default:
			written++
			fmt.Fprintf(out, "wrote %s\n", p.opts.show(work))
		}
	}
	fmt.Fprintf(out, "Generated the %s handler of %s (runtime %s) in %s: %d written, %d unchanged.\n",
		p.handler.Kind, p.spec.Operation, p.runtime, p.opts.show(p.target), written, unchanged)
	pkg := p.opts.show(p.target)
	if !filepath.IsAbs(pkg) {
		pkg = "./" + filepath.ToSlash(pkg)
	}
	if p.work != nil {
		fmt.Fprintf(out, "Write the operation's code in %s and pass it to %s; the tests run now: go test %s\n",
			p.opts.show(work), p.handler.Constructor, pkg)
	}
	if p.spec.Store.AuditRow {
		p.auditHint()
	}
	return nil
}

// auditHint says where the audit row the spec keeps comes from, and how to get the Postgres
// store that writes it when the runtime was generated without one.
func (p *handlerPlan) auditHint() {
	out, rt := p.opts.IO.Out, p.opts.show(p.rtDir)
	var stores []string // those generated into the runtime
	for _, name := range templates.StoreNames() {
		if fi, err := os.Stat(filepath.Join(p.rtDir, templates.StoreDir(name))); err == nil && fi.IsDir() {
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
