package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/huh"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/templates"
)

// Choices at the end of the interactive design.
const (
	choiceWrite  = "write"
	choiceChange = "change"
	choiceQuit   = "quit"
)

// runDesignForm asks the six questions, decides, and shows a summary and a
// preview of the spec until the person writes it, changes the answers, or
// quits. ok is false when nothing should be written (quit or Ctrl-C). A
// rejected design sends the person back to their answers with the reason.
func runDesignForm(opts *DesignOptions, cat *rules.Catalog, a *design.Answers, target func(slug string) string) (d design.Design, ok bool, err error) {
	run := design.RunWith(opts.Ctx, opts.IO.In, opts.IO.Out, opts.Accessible)
	for {
		if err := design.Interview(a, cat, run); err != nil {
			if errors.Is(err, huh.ErrUserAborted) {
				return d, false, nil
			}
			return d, false, err
		}
		d, err = decide(*a, cat)
		if err != nil {
			fmt.Fprintf(opts.IO.Out, "\n%s\n\n", err)
			again := true
			f := huh.NewForm(huh.NewGroup(huh.NewConfirm().
				Title("Change your answers?").
				Description("No leaves without writing anything.").
				Affirmative("Change").Negative("Quit").
				Value(&again)))
			if err := run(f); err != nil || !again {
				return d, false, nil
			}
			continue
		}
		doc, err := templates.RenderSpec(d.Spec)
		if err != nil {
			return d, false, err
		}
		preview, err := specPreview(opts, doc)
		if err != nil {
			return d, false, err
		}
		fmt.Fprintf(opts.IO.Out, "\n%s\n", preview)
		fmt.Fprintln(opts.IO.Out, wrap(summary(d), opts.IO.Width))

		choice := choiceWrite
		f := huh.NewForm(huh.NewGroup(huh.NewSelect[string]().
			Title("What now?").
			Options(
				huh.NewOption("Write "+target(d.Spec.Slug), choiceWrite),
				huh.NewOption("Change the answers", choiceChange),
				huh.NewOption("Quit without writing", choiceQuit),
			).
			Value(&choice)))
		if err := run(f); err != nil {
			if errors.Is(err, huh.ErrUserAborted) {
				return d, false, nil
			}
			return d, false, err
		}
		switch choice {
		case choiceWrite:
			return d, true, nil
		case choiceQuit:
			return d, false, nil
		}
	}
}

// specPreview renders the spec shown before it is written. The front
// matter is for machines and says again what the body says for people, so
// the preview is the body; --print shows the whole file.
func specPreview(opts *DesignOptions, doc []byte) ([]byte, error) {
	style := styles.DarkStyle
	if opts.Accessible || !opts.IO.OutTTY {
		style = styles.NoTTYStyle
	}
	return renderMarkdown(bodyOnly(doc), opts.OutDir, opts.IO.Width, style)
}

// summary is the one-screen digest shown under the preview.
func summary(d design.Design) string {
	s := d.Spec
	src := s.Key.Source
	if s.Key.Provider != "" {
		src += " (" + s.Key.ProviderName + ")"
	}
	out := fmt.Sprintf("Summary: %s — key from %s as %s; %s for %s (retry window %s); %d downstream step(s).",
		s.Operation, src, s.Key.Format, s.Store.Kind, s.TTL.Duration, s.TTL.RetryWindow, len(s.Downstream))
	for _, n := range d.Notes {
		out += "\nNote: " + n
	}
	return out
}

// wrap breaks text at spaces so that no line is wider than width (when
// width is known), keeping its line breaks.
func wrap(text string, width int) string {
	if width <= 0 {
		return text
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		cur := ""
		for _, w := range strings.Fields(line) {
			if cur != "" && len([]rune(cur))+1+len([]rune(w)) > width {
				out = append(out, cur)
				cur = "  " + w
				continue
			}
			if cur == "" {
				cur = w
			} else {
				cur += " " + w
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}
