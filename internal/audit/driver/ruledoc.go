package driver

import (
	"bytes"
	"fmt"
	"strings"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/rules"
)

// RuleDoc is an analyzer's documentation as people read it: explained by
// `idemkit rules NAME` and shown as a rule's help in code scanning. Both
// come from here so that they never disagree.
type RuleDoc struct {
	Name  string
	Title string // one line
	// Summary is plain text: why it matters and what to do instead.
	Summary string
	// Markdown is the full explanation, with the bad and the good example.
	Markdown []byte
}

// Describe documents a from the rules catalogue, which holds each check's
// title, reasons and examples. An analyzer the catalogue does not know
// (a stand-in in tests) is described by its Doc, whose first line is the
// title by the go/analysis convention.
func Describe(a *analysis.Analyzer) RuleDoc {
	if c, ok := rules.Default().Check(a.Name); ok {
		return DescribeCheck(c)
	}
	doc := strings.TrimSpace(a.Doc)
	title, _, _ := strings.Cut(doc, "\n")
	return RuleDoc{
		Name:     a.Name,
		Title:    title,
		Summary:  doc,
		Markdown: fmt.Appendf(nil, "# %s\n\n%s\n\n%s\n", a.Name, doc, ignoreHint(a.Name)),
	}
}

// DescribeCheck documents one check of the catalogue.
func DescribeCheck(c *rules.Check) RuleDoc {
	var md bytes.Buffer
	fmt.Fprintf(&md, "# %s: %s\n\n%s\n", c.ID, c.Title, strings.TrimSpace(c.Why))
	if ap, ok := rules.Default().AntiPattern(c.AntiPattern); ok {
		fmt.Fprintf(&md, "\nThe anti-pattern: **%s** (`%s`).\n", ap.Title, ap.ID)
	}
	fmt.Fprintf(&md, "\n## Reported\n\n```go\n%s\n```\n", strings.TrimSpace(c.Bad))
	fmt.Fprintf(&md, "\n## Instead\n\n```go\n%s\n```\n", strings.TrimSpace(c.Good))
	if fix := strings.TrimSpace(c.Fix); fix != "" {
		fmt.Fprintf(&md, "\n%s\n", fix)
	}
	fmt.Fprintf(&md, "\n%s\n", ignoreHint(c.ID))
	return RuleDoc{
		Name:     c.ID,
		Title:    c.Title,
		Summary:  strings.TrimSpace(strings.TrimSpace(c.Why) + "\n\n" + strings.TrimSpace(c.Fix)),
		Markdown: md.Bytes(),
	}
}

func ignoreHint(name string) string {
	return fmt.Sprintf("Silence one finding, saying why, with `//idemkit:ignore %s REASON` on its line or the line above.", name)
}
