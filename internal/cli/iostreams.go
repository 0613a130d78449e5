package cli

import (
	"bytes"
	"io"
	"os"

	"github.com/charmbracelet/lipgloss"
	"golang.org/x/term"
)

// IOStreams are the only way commands read input and write output. They
// know whether each end is a terminal, so commands can refuse to prompt
// without one and choose plain output when piped.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY  bool
	OutTTY bool
	// ErrTTY says ErrOut is a terminal, where progress may be drawn and
	// redrawn in place; piped, it would only litter a log.
	ErrTTY bool
	// Width is the terminal width for rendering; 0 when not a terminal.
	Width int

	// askBackground asks the terminal for its background colour; nil
	// unless both ends are a terminal.
	askBackground func()
}

// AskBackground asks the terminal whether its background is dark and tells
// Lip Gloss, so that the interactive form's adaptive colours suit it.
// idemkit starts without asking (cmd/idemkit/internal/quietstart): the
// question writes escapes to the terminal and waits for the answer, up to
// five seconds on one that never gives it. So only the interactive form
// asks, just before it runs: Bubble Tea must not hold the terminal yet, or
// it swallows the answer. On streams that are not a terminal it does
// nothing.
func (s *IOStreams) AskBackground() {
	if s.askBackground != nil {
		s.askBackground()
	}
}

// System returns streams bound to the process's standard files.
func System() *IOStreams {
	s := &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	s.InTTY = term.IsTerminal(int(os.Stdin.Fd()))
	s.OutTTY = term.IsTerminal(int(os.Stdout.Fd()))
	s.ErrTTY = term.IsTerminal(int(os.Stderr.Fd()))
	if s.OutTTY {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil {
			s.Width = w
		}
	}
	if s.InTTY && s.OutTTY {
		s.askBackground = func() {
			// A new renderer asks afresh: the default one kept what it
			// was told during start-up.
			lipgloss.SetHasDarkBackground(lipgloss.NewRenderer(os.Stdout).HasDarkBackground())
		}
	}
	return s
}

// TestStreams returns streams over buffers, for tests. tty sets every end
// to behave as a terminal of width 80.
func TestStreams(in string, tty bool) (s *IOStreams, out, errOut *bytes.Buffer) {
	out, errOut = new(bytes.Buffer), new(bytes.Buffer)
	s = &IOStreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut, InTTY: tty, OutTTY: tty, ErrTTY: tty}
	if tty {
		s.Width = 80
	}
	return s, out, errOut
}
