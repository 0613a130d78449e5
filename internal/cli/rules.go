package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/audit/driver"
	"github.com/idemkit/idemkit/internal/rules"
)

// RulesOptions are the inputs of idemkit rules.
type RulesOptions struct {
	IO *IOStreams
	// Name is the positional NAME: a check, or a system of the catalogue
	// (a provider or a downstream target); empty lists them.
	Name string
	// Systems lists the catalogue's systems instead of the checks.
	Systems bool
	// Catalog loads the catalogue with the team's overrides.
	Catalog func() (*rules.Catalog, error)
}

// NewCmdRules builds idemkit rules. runF replaces the run function in
// tests of argument handling.
func NewCmdRules(f *Factory, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: f.IO}
	var rulesFile string
	opts.Catalog = func() (*rules.Catalog, error) { return loadCatalog(f, rulesFile) }
	cmd := &cobra.Command{
		Use:   "rules [NAME]",
		Short: "List the audit checks and the catalogue's systems, or explain one",
		Long: `List the checks that 'idemkit audit' and go vet -vettool run, with what
each one finds. With a NAME, explain that check: why it matters, code it
reports and the same code done right. The names are the ones findings,
go vet -json output and //idemkit:ignore use.

With --systems, list the systems idemkit's catalogue knows instead: who
retries or redelivers (webhook senders, queues, workflow engines,
schedulers), for how long and what that number is, and the downstream
targets with whether they honour an idempotency key and for how long,
each with the page the numbers come from. NAME may also be one of these
systems. The list includes a team's own from .idemkit.yaml (or --rules).`,
		Example: `  idemkit rules
  idemkit rules checkthenact
  idemkit rules --systems
  idemkit rules stripe`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if opts.Systems && opts.Name != "" {
				return usageErr("--systems lists every system; to explain one, run 'idemkit rules %s' without it", opts.Name)
			}
			if runF != nil {
				return runF(opts)
			}
			return rulesRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Systems, "systems", false, "list the catalogue's systems (providers and downstream targets) with their windows and sources")
	cmd.Flags().StringVar(&rulesFile, "rules", "", "catalogue overrides `FILE` (default: .idemkit.yaml at the repository root)")
	return cmd
}

func rulesRun(opts *RulesOptions) error {
	cat, err := opts.Catalog()
	if err != nil {
		return err
	}
	switch {
	case opts.Systems:
		return listSystems(opts.IO, cat)
	case opts.Name == "":
		return listChecks(opts.IO, cat)
	}
	if c, ok := cat.Check(opts.Name); ok {
		return printMarkdown(opts.IO, driver.DescribeCheck(c).Markdown)
	}
	if p, ok := cat.Provider(opts.Name); ok {
		return printMarkdown(opts.IO, describeProvider(p))
	}
	if t, ok := cat.Target(opts.Name); ok {
		return printMarkdown(opts.IO, describeTarget(cat, t))
	}
	// Not an ID: a system's name as people write it ("Checkout.com",
	// "GoCardless API"), found as idemkit design finds it.
	p, perr := cat.FindProvider(opts.Name)
	t, terr := cat.FindTarget(opts.Name)
	if perr == nil && terr == nil {
		// "Stripe webhooks" is the sender, "GoCardless API" the target.
		switch rules.NameSays(opts.Name) {
		case "provider":
			terr = errors.New("a sender")
		case "target":
			perr = errors.New("a target")
		}
	}
	switch {
	case perr == nil && terr == nil:
		return usageErr("%q could be the sender %s (%s) or the target %s (%s); write the ID of the one you mean",
			opts.Name, p.ID, p.Name, t.ID, t.Name)
	case perr == nil:
		return printMarkdown(opts.IO, describeProvider(p))
	case terr == nil:
		return printMarkdown(opts.IO, describeTarget(cat, t))
	}
	for _, err := range []error{perr, terr} {
		if ne := (*rules.NameError)(nil); errors.As(err, &ne) && ne.Ambiguous() {
			return usageErr("%v", err)
		}
	}
	names := make([]string, len(cat.Checks))
	for i, c := range cat.Checks {
		names[i] = c.ID
	}
	// A check one or two letters off is what was meant; otherwise a
	// system whose name is near.
	var near []string
	for _, c := range names {
		if rules.Distance(strings.ToLower(opts.Name), c) <= max(1, len(c)/4) {
			near = append(near, c)
		}
	}
	if len(near) == 0 {
		for _, err := range []error{perr, terr} {
			if ne := (*rules.NameError)(nil); errors.As(err, &ne) {
				near = append(near, ne.Near...)
			}
		}
	}
	hint := ""
	if len(near) > 0 {
		hint = " (did you mean " + strings.Join(near, " or ") + "?)"
	}
	return usageErr("no check or system named %q%s; the checks are %s, and 'idemkit rules --systems' lists the systems",
		opts.Name, hint, strings.Join(names, ", "))
}

func listChecks(io *IOStreams, cat *rules.Catalog) error {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tFINDS")
	for _, c := range cat.Checks {
		fmt.Fprintf(tw, "%s\t%s\n", c.ID, cell(c.Title))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(io.ErrOut, "Run 'idemkit rules NAME' for why it matters and examples, 'idemkit rules --systems' for the catalogue's systems.")
	return nil
}

// listSystems writes two tables: the providers (who retries, for how
// long, what the number is, and where it is written) and the downstream
// targets (whether they deduplicate, through what, for how long). A
// number the catalogue could not check against the docs is marked *.
func listSystems(io *IOStreams, cat *rules.Catalog) error {
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	unverified := false
	mark := func(s string) string {
		if s != "" {
			unverified = true
			return "*"
		}
		return ""
	}
	fmt.Fprintln(tw, "SYSTEM\tKIND\tWINDOW\tTHE WINDOW IS\tSOURCE")
	for i := range cat.Providers {
		p := &cat.Providers[i]
		window := p.RetryWindow.String()
		if p.Unbounded {
			window = "unbounded"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\t%s\t%s\n", p.ID, p.Kind, window, mark(p.Unverified), orDash(windowKind(p)), orDash(windowURL(p)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(io.Out)
	tw = tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tDEDUP\tVIA\tREMEMBERS\tSOURCE")
	for i := range cat.Targets {
		t := &cat.Targets[i]
		remembers := "-"
		switch {
		case t.Remembers > 0:
			remembers = t.Remembers.String()
		case t.Dedup == rules.DedupKey:
			remembers = "unpublished"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\t%s\n", t.ID, t.Dedup, orDash(via(t.Via)), remembers, mark(t.Unverified), t.Reference)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if unverified {
		fmt.Fprintln(io.ErrOut, "* not every number of this entry could be checked against the system's own documentation; 'idemkit rules NAME' says which.")
	}
	fmt.Fprintln(io.ErrOut, "Run 'idemkit rules NAME' for a system's key, what bounds a redelivery, and what to leave out of the hash.")
	return nil
}

// describeProvider explains one provider as markdown: where its key is,
// its window and what that is, and what ends a redelivery.
func describeProvider(p *rules.Provider) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", p.ID, p.Name)
	fmt.Fprintf(&b, "A %s; its keys are %s keys.\n\n", p.Kind, p.Source)
	b.WriteString("## Key\n\n")
	if len(p.Key.From) == 0 {
		fmt.Fprintf(&b, "%s (example `%s`).\n\n", p.KeyField, p.KeyExample)
	} else {
		fmt.Fprintf(&b, "Format `%s`, e.g. `%s`", p.Key.Format, p.KeyExample)
		if p.Key.Batch {
			items := "the body"
			if p.Key.Items != "" {
				items = "`" + p.Key.Items + "`"
			}
			fmt.Fprintf(&b, "; a delivery is a batch (%s): key and claim each event on its own", items)
		}
		b.WriteString(".\n\n")
		for _, l := range p.Key.From {
			fmt.Fprintf(&b, "- `%s`: %s `%s`\n", l.Part, l.Kind, l.Name)
		}
		if p.Key.Scope != "" {
			fmt.Fprintf(&b, "\nScope it by %s.\n", p.Key.Scope)
		}
		b.WriteString("\n")
	}
	if rules.PayloadOf(p) != rules.PayloadJSON || p.Ack.Body != "" {
		b.WriteString("## Delivery\n\n")
		if payload := rules.PayloadOf(p); payload != rules.PayloadJSON {
			fmt.Fprintf(&b, "The body is %s, not JSON (%s): body locations name its elements or fields, and generate handler writes receivers that read JSON only.\n\n", payload, p.PayloadURL)
		}
		if p.Ack.Body != "" {
			fmt.Fprintf(&b, "Acknowledge a delivery with a 2xx and the body `%s`", p.Ack.Body)
			if p.Ack.ContentType != "" {
				fmt.Fprintf(&b, " (%s)", p.Ack.ContentType)
			}
			fmt.Fprintf(&b, ", once every event is recorded (%s).\n\n", p.Ack.URL)
		}
	}
	b.WriteString("## Retry window\n\n")
	if p.Unbounded {
		b.WriteString("No clock bounds a redelivery")
	} else {
		fmt.Fprintf(&b, "%s", p.RetryWindow)
	}
	if p.Window.Is != "" {
		fmt.Fprintf(&b, ": %s", p.Window.Is)
	}
	fmt.Fprintf(&b, ". Suggested key TTL: %s.", p.SuggestedTTL)
	if p.Window.Configurable {
		b.WriteString(" The number is a setting of yours: put your own in .idemkit.yaml.")
	}
	fmt.Fprintf(&b, "\n\n%s\n\n", strings.TrimSpace(p.Bound))
	if p.Correction != "" {
		fmt.Fprintf(&b, "**Often quoted otherwise.** %s\n\n", strings.TrimSpace(p.Correction))
	}
	if len(p.Exclude) > 0 {
		b.WriteString("## Leave out of the hash\n\n")
		for _, f := range p.Exclude {
			fmt.Fprintf(&b, "- %s `%s`: %s\n", f.Kind, f.Name, f.Reason)
		}
		b.WriteString("\n")
	}
	if p.Unverified != "" {
		fmt.Fprintf(&b, "**Not checked against the docs.** %s\n\n", strings.TrimSpace(p.Unverified))
	}
	fmt.Fprintf(&b, "Source: %s\n", windowURL(p))
	return []byte(b.String())
}

// describeTarget explains one downstream target as markdown.
func describeTarget(cat *rules.Catalog, t *rules.Target) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", t.ID, t.Name)
	switch t.Dedup {
	case rules.DedupKey:
		fmt.Fprintf(&b, "Honours an idempotency key sent in %s", via(t.Via))
		if t.Remembers > 0 {
			fmt.Fprintf(&b, ", remembered for %s", t.Remembers)
		}
		b.WriteString(".")
	case rules.DedupNatural:
		fmt.Fprintf(&b, "Idempotent by itself on %s.", via(t.Via))
	default:
		b.WriteString("Does not deduplicate: it performs every call it receives.")
	}
	if t.RemembersNote != "" {
		fmt.Fprintf(&b, " Retention: %s.", strings.TrimSpace(t.RemembersNote))
	}
	if a := repeatAnswers[t.Repeat]; a != "" {
		fmt.Fprintf(&b, " A repeat with the same key %s.", a)
	}
	fmt.Fprintf(&b, "\n\n%s\n\n", strings.TrimSpace(t.Note))
	if m, ok := cat.Mechanism(t.Mechanism); ok {
		fmt.Fprintf(&b, "## Mechanism: %s\n\n%s\n\n", m.Title, strings.TrimSpace(m.How))
	}
	if t.Unverified != "" {
		fmt.Fprintf(&b, "**Not checked against the docs.** %s\n\n", strings.TrimSpace(t.Unverified))
	}
	fmt.Fprintf(&b, "Source: %s\n", t.Reference)
	return []byte(b.String())
}

// repeatAnswers says what a target answers a repeated call, by its
// Target.Repeat.
var repeatAnswers = map[string]string{
	rules.RepeatFirstResult:  "gets the first call's result back",
	rules.RepeatCurrentState: "gets back what the first call made, in its current state",
	rules.RepeatConflict:     "is refused with 409 Conflict: the first call was done, so treat it as done, not as a failure",
	rules.RepeatAccepted:     "is accepted as a success and dropped",
}

func windowKind(p *rules.Provider) string { return p.Window.Kind }

// windowURL is the page that states the window: its own, or the
// provider's reference.
func windowURL(p *rules.Provider) string {
	if p.Window.URL != "" {
		return p.Window.URL
	}
	return p.Reference
}

func via(l rules.Location) string {
	if l == (rules.Location{}) {
		return ""
	}
	return l.Kind + " " + l.Name
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
