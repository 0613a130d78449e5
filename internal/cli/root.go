// Package cli is idemkit's command layer: the cobra commands, their flags,
// and every read and write of files and streams. The packages below it are
// pure; this one decides exit codes.
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

	root.AddCommand(NewCmdDesign(f, nil))
	root.AddCommand(NewCmdSpecs(f, nil))
	root.AddCommand(NewCmdDerive(f, nil))
	root.AddCommand(NewCmdGenerate(f))
	root.AddCommand(NewCmdAudit(f, nil))
	root.AddCommand(NewCmdRules(f, nil))
	root.AddCommand(newCmdVersion(f))
	root.AddCommand(newCmdCompletion(f))
	return root
}

// Main runs the CLI with args and returns the process exit code.
func Main(ctx context.Context, f *Factory, args []string) int {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil && !errors.Is(err, errSilent) {
		msg := err.Error()
		if strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") ||
			strings.Contains(msg, "accepts") && strings.Contains(msg, "arg(s)") {
			err = &ExitError{Code: ExitUsage, Err: err}
		}
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
