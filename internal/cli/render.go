package cli

import (
	"bytes"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/glamour/styles"
)

// printMarkdown writes a document: raw markdown when piped, so that
// "idemkit design --print > spec.md" gives the file; rendered with glamour
// on a terminal, the way glow does.
func printMarkdown(io *IOStreams, doc []byte) error { return printSpec(io, doc, "") }

// printSpec is printMarkdown for a spec that goes in dir, where its
// relative links start; on a terminal its front matter shows as YAML.
func printSpec(io *IOStreams, doc []byte, dir string) error {
	if !io.OutTTY {
		_, err := io.Out.Write(doc)
		return err
	}
	out, err := renderMarkdown(frontMatterAsCode(doc), dir, io.Width, styles.DarkStyle)
	if err != nil {
		return err
	}
	_, err = io.Out.Write(out)
	return err
}

// renderMarkdown renders doc with glamour for a terminal width columns
// wide. glamour wraps a list item at dots and hyphens too, which cut a URL
// in two (docs.stripe./com); their dots and hyphens are swapped for
// look-alikes it does not break at, and swapped back once it has wrapped.
// It would also show a relative link as the root path its "../" resolves
// to (/patterns/…); such a link shows the path from dir instead.
func renderMarkdown(doc []byte, dir string, width int, style string) ([]byte, error) {
	if width <= 0 || width > 120 {
		width = 100
	}
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width-2))
	if err != nil {
		return nil, err
	}
	if bytes.ContainsAny(doc, unbreakable) {
		return r.RenderBytes(doc)
	}
	out, err := r.RenderBytes(keepWhole(localLinks(doc, dir)))
	if err != nil {
		return nil, err
	}
	return []byte(breakable.Replace(string(out))), nil
}

// The one dot leader and the non-breaking hyphen stand in for a URL's dots
// and hyphens while glamour wraps it.
const unbreakable = "\u2024\u2011"

var (
	whole     = strings.NewReplacer(".", "\u2024", "-", "\u2011")
	breakable = strings.NewReplacer("\u2024", ".", "\u2011", "-")
	urlish    = regexp.MustCompile(`https?://[^\s<>()\[\]` + "`" + `]+[^\s<>()\[\]` + "`" + `.,;:]|` + "`" + `[^` + "`" + `\s]+/[^` + "`" + `\s]+` + "`")
	link      = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
)

// keepWhole swaps the dots and hyphens of URLs and of paths in code
// spans. Other code spans may break at a hyphen: in a table cell narrower
// than one, that beats a break inside a word.
func keepWhole(doc []byte) []byte {
	return urlish.ReplaceAllFunc(doc, func(u []byte) []byte { return []byte(whole.Replace(string(u))) })
}

// localLinks rewrites each relative link as its text and the path it names
// from dir, kept whole: "patterns (knowledge/patterns/p.md)".
func localLinks(doc []byte, dir string) []byte {
	return link.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := link.FindSubmatch(m)
		dest := string(sub[2])
		if strings.Contains(dest, ":") || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") {
			return m
		}
		p := path.Clean(path.Join(filepath.ToSlash(dir), dest))
		return []byte(string(sub[1]) + " (" + whole.Replace(p) + ")")
	})
}

// bodyOnly is doc without its YAML front matter, the part for machines.
func bodyOnly(doc []byte) []byte {
	if _, body, ok := cutFrontMatter(doc); ok {
		return bytes.TrimLeft(body, "\n")
	}
	return doc
}

func frontMatterAsCode(doc []byte) []byte {
	fm, body, ok := cutFrontMatter(doc)
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

// cutFrontMatter splits doc into its front matter and its body.
func cutFrontMatter(doc []byte) (fm, body []byte, ok bool) {
	rest, ok := bytes.CutPrefix(doc, []byte("---\n"))
	if !ok {
		return nil, doc, false
	}
	return bytes.Cut(rest, []byte("\n---\n"))
}
