package cli

import (
	"bytes"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
)

// printMarkdown writes a spec: raw markdown when piped, so that
// "idemkit design --print > spec.md" gives the file; rendered with glamour
// on a terminal, the way glow does.
func printMarkdown(io *IOStreams, doc []byte) error {
	if !io.OutTTY {
		_, err := io.Out.Write(doc)
		return err
	}
	out, err := renderMarkdown(doc, io.Width, styles.DarkStyle)
	if err != nil {
		return err
	}
	_, err = io.Out.Write(out)
	return err
}

// renderMarkdown renders doc with glamour, showing YAML front matter as a
// code block rather than as a stray rule and paragraph.
func renderMarkdown(doc []byte, width int, style string) ([]byte, error) {
	if width <= 0 || width > 120 {
		width = 100
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-2))
	if err != nil {
		return nil, err
	}
	return r.RenderBytes(frontMatterAsCode(doc))
}

func frontMatterAsCode(doc []byte) []byte {
	rest, ok := bytes.CutPrefix(doc, []byte("---\n"))
	if !ok {
		return doc
	}
	fm, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return doc
	}
	var b bytes.Buffer
	b.WriteString("```yaml\n")
	b.Write(fm)
	b.WriteString("\n```\n")
	b.Write(body)
	return b.Bytes()
}
