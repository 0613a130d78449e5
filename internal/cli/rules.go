package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/audit/driver"
	"github.com/idemkit/idemkit/internal/rules"
)

// RulesOptions are the inputs of idemkit rules.
type RulesOptions struct {
	IO   *IOStreams
	Name string // positional NAME; empty lists every check
}

// NewCmdRules builds idemkit rules. runF replaces the run function in
// tests of argument handling.
func NewCmdRules(f *Factory, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "rules [NAME]",
		Short: "List the audit checks, or explain one with examples",
		Long: `List the checks that 'idemkit audit' and go vet -vettool run, with what
each one finds. With a NAME, explain that check: why it matters, code it
reports and the same code done right. The names are the ones findings,
go vet -json output and //idemkit:ignore use.`,
		Example: `  idemkit rules
  idemkit rules checkthenact`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Name = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return rulesRun(opts)
		},
	}
}

func rulesRun(opts *RulesOptions) error {
	checks := rules.Default().Checks
	if opts.Name == "" {
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tFINDS")
		for _, c := range checks {
			fmt.Fprintf(tw, "%s\t%s\n", c.ID, cell(c.Title))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(opts.IO.ErrOut, "Run 'idemkit rules NAME' for why it matters and examples.")
		return nil
	}
	c, ok := rules.Default().Check(opts.Name)
	if !ok {
		names := make([]string, len(checks))
		for i, c := range checks {
			names[i] = c.ID
		}
		return usageErr("no check named %q; the checks are %s", opts.Name, strings.Join(names, ", "))
	}
	return printMarkdown(opts.IO, driver.DescribeCheck(c).Markdown)
}
