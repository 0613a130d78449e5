// Package cli is idemkit's command layer: the cobra commands, their flags,
// and every read and write of files and streams. The packages below it are
// pure; this one decides exit codes, the same for every command:
//
//	0    success; --help and help on any command
//	1    findings: audit findings, a design rejected for an anti-pattern,
//	     an invalid spec, generated files drifted (--check)
//	2    bad usage or bad input: an unknown command or flag, a wrong
//	     number of arguments, a flag value or input file that cannot be
//	     used, a file that exists without --force, a pattern that
//	     matches no package
//	3    failure: the command was right but could not be carried out,
//	     e.g. a file that could not be read or written, packages that
//	     could not be loaded or type-checked, go list failing
//	130  the interactive design was abandoned (Ctrl-C, or quit)
//
// Errors are classified by type (ExitError, and the typed errors of
// genplan), never by their text: cobra's own usage errors are made typed
// where they arise, by the flag error function and by wrapping every
// command's argument validator (see classifyUsage). Anything else is a
// failure.
package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/idemkit/idemkit/internal/version"
)

// Factory carries what commands share: the streams and the environment.
// Tests build one with TestStreams and a fake environment.
type Factory struct {
	IO *IOStreams
	// Getenv reads the environment (ACCESSIBLE, NO_COLOR, ...).
	Getenv func(string) string
	// Dir is the working directory that relative paths are resolved against.
	Dir string
}

// NewCmdRoot builds the idemkit command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "idemkit",
		Short: "Make idempotency keys hard to get wrong",
		Long: `idemkit designs idempotency out of the classic mistakes before code exists
(design), finds them in code that does exist (audit), and writes a runtime
library that gets the hard parts right into your module (generate).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
	}
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetVersionTemplate("idemkit {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	root.SetHelpCommand(newCmdHelp())
	// The grouping commands run only to show their help (classifyUsage):
	// their usage names the subcommands, not a run of their own.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))

	root.AddCommand(NewCmdDesign(f, nil))
	root.AddCommand(NewCmdSpecs(f, nil))
	root.AddCommand(NewCmdDerive(f, nil))
	root.AddCommand(NewCmdGenerate(f))
	root.AddCommand(NewCmdAudit(f, nil))
	root.AddCommand(NewCmdRules(f, nil))
	root.AddCommand(newCmdVersion(f))
	root.AddCommand(newCmdCompletion(f))
	classifyUsage(root)
	return root
}

// classifyUsage makes the argument errors of c and every command below it
// usage errors (ExitUsage), where cobra would return plain text. A
// command that only groups others (idemkit, idemkit generate) gets a run
// function that shows its help, so that cobra checks its arguments rather
// than showing help for an unknown command and exiting 0; an argument
// names no subcommand there, and the error suggests the nearest.
func classifyUsage(c *cobra.Command) {
	if c.HasSubCommands() && !c.Runnable() {
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's own default
		}
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
			if s := c.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "; did you mean " + strings.Join(s, " or ") + "?"
			}
			return errors.New(msg)
		}
	}
	if valid := c.Args; valid != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := valid(c, args); err != nil {
				return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		classifyUsage(sub)
	}
}

// newCmdHelp is cobra's help command, except that an unknown topic is bad
// usage rather than a usage text and exit 0.
func newCmdHelp() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help provides help for any command in the application.\nSimply type idemkit help [path to command] for full details.",
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 && cmd.HasAvailableSubCommands() {
				return usageErr("unknown help topic %q; run 'idemkit help' for the commands", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
	}
}

// Main runs the CLI with args and returns the process exit code.
func Main(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errSilent) {
		fmt.Fprintf(f.IO.ErrOut, "idemkit: %s\n", strings.TrimSpace(err.Error()))
	}
	return exitCode(err)
}

func newCmdVersion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print idemkit's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "idemkit %s\n", version.String())
			return err
		},
	}
}

func newCmdCompletion(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for your shell. For example, in bash:

  source <(idemkit completion bash)`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(f.IO.Out, true)
			case "zsh":
				return root.GenZshCompletion(f.IO.Out)
			case "fish":
				return root.GenFishCompletion(f.IO.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(f.IO.Out)
			}
		},
	}
}
