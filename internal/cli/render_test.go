package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/glamour/styles"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/templates"
)

// checkReadable fails the test when text, a spec rendered for a terminal
// 80 columns wide, cuts one of urls, shows a relative link as the root
// path glamour resolves it to, or has a line wider than the screen that is
// not a URL alone.
func checkReadable(t *testing.T, name, text string, urls []string) {
	t.Helper()
	flat := strings.Join(strings.Fields(text), " ")
	for _, u := range urls {
		if !strings.Contains(flat, u) {
			t.Errorf("%s: %q is not whole:\n%s", name, u, text)
		}
	}
	for _, not := range []string{" /patterns/", "\u2024", "\u2011"} {
		if strings.Contains(text, not) {
			t.Errorf("%s: the preview shows %q:\n%s", name, not, text)
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		if w := len([]rune(line)); w > 80 && !strings.HasPrefix(strings.TrimSpace(line), "https://") {
			t.Errorf("%s: a line of %d columns: %q", name, w, line)
		}
	}
}

// glamour wraps a list item at dots and hyphens; the rendering keeps URLs
// and paths whole and shows a relative link as the path it names.
func TestRenderMarkdownKeepsURLsWhole(t *testing.T) {
	t.Parallel()
	doc := "# Idempotency Design: create payment\n\n" +
		"- Window source: the sender documents its retries at https://docs.github.com/en/webhooks/using-webhooks/handling-failed-webhook-deliveries for days\n" +
		"- Target: Stripe API (POST requests) deduplicates on a key sent in the header Idempotency-Key for 1d. Source: https://docs.stripe.com/api/idempotent_requests\n" +
		"- Handler: `internal/payments/create-payment.go` is generated\n\n" +
		"Patterns: [idempotency patterns](../patterns/idempotency-patterns.md)\n"
	for _, style := range []string{styles.NoTTYStyle, styles.DarkStyle} {
		out, err := renderMarkdown([]byte(doc), "knowledge/projects", 80, style)
		if err != nil {
			t.Fatal(err)
		}
		checkReadable(t, style, ansi.ReplaceAllString(string(out), ""), []string{
			"https://docs.stripe.com/api/idempotent_requests",
			"https://docs.github.com/en/webhooks/using-webhooks/handling-failed-webhook-deliveries",
			"internal/payments/create-payment.go",
			"idempotency patterns (knowledge/patterns/idempotency-patterns.md)",
		})
	}
}

var specURL = regexp.MustCompile(`https?://[^\s'"<>()\]]+[^\s'"<>()\].,;:]`)

// The preview before writing is the spec's body, without the front matter,
// readable at 80 columns, for every preset.
func TestSpecPreviewAt80(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, id := range cat.PresetIDs() {
		var a design.Answers
		if err := design.ApplyPreset(cat, id, &a); err != nil {
			t.Fatal(err)
		}
		a.Operation = "op " + id
		d, err := design.Decide(a, cat)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		doc, err := templates.RenderSpec(d.Spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, tty := range []bool{false, true} {
			io, _, _ := TestStreams("", tty)
			io.Width = 80
			out, err := specPreview(&DesignOptions{IO: io, OutDir: "knowledge/projects"}, doc)
			if err != nil {
				t.Fatal(err)
			}
			text := ansi.ReplaceAllString(string(out), "")
			if strings.Contains(text, "schema: 1") {
				t.Errorf("%s: the preview shows the front matter:\n%s", id, text)
			}
			_, body, _ := cutFrontMatter(doc)
			checkReadable(t, id, text, specURL.FindAllString(string(body), -1))
		}
	}
}
