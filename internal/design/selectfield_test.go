package design

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"

	"github.com/idemkit/idemkit/internal/rules"
)

// views lays f out on a terminal of w x h, as RunWith runs it, and returns
// the view of each of its groups in turn.
func views(f *huh.Form, w, h int) []string {
	m := fit(f)
	m.Init()
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	var out []string
	for range 12 {
		out = append(out, m.View())
		if f.State != huh.StateNormal {
			break
		}
		before := f.View()
		f.NextGroup()
		if f.View() == before || f.State != huh.StateNormal {
			break
		}
	}
	return out
}

// onScreen is what Bubble Tea's renderer shows of a view on a terminal h
// lines high: it drops the lines above the last h, as it cannot move the
// cursor into the scrollback. RunWith leaves the renderer the real height.
func onScreen(view string, h int) string {
	lines := strings.Split(view, "\n")
	return strings.Join(lines[max(0, len(lines)-h):], "\n")
}

// Every stage of the interview fits the terminal at 80x24 and 120x40:
// no view is taller or wider than the screen (a taller one loses its first
// line off the top), and every question's teaching note and first title
// are on screen when the person reaches them, for every source.
func TestFormFitsTheTerminal(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, src := range []struct {
		name string
		key  KeyAnswers
	}{
		{"client", KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id"}},
		{"webhook", KeyAnswers{Source: "webhook", Provider: "stripe", Scope: "unscoped"}},
		{"queue", KeyAnswers{Source: "queue", Provider: "sqs", Scope: "unscoped"}},
		{"workflow", KeyAnswers{Source: "workflow", Workflow: "checkout", Step: "charge", Param: "order_id", Window: "7d", Scope: "unscoped"}},
		{"cron", KeyAnswers{Source: "cron", Job: "invoices", Schedule: "1d", Scope: "unscoped"}},
	} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(src.name, func(t *testing.T) {
				t.Parallel()
				a := Answers{Operation: "op", Kind: "payment", Key: src.key}
				var preset string
				stages := []struct {
					form func() *huh.Form
					want []string
				}{
					{func() *huh.Form { return NewStartForm(&a, cat, &preset) }, []string{"idemkit design", "Operation"}},
					{func() *huh.Form { return NewSourceForm(&a, cat) }, []string{"What kind of operation is it?", "Q1 · Who supplies the key?"}},
					{func() *huh.Form { return NewKeyForm(&a, cat) }, []string{"Q1 · ", "Which provider?|Header that carries the key|Workflow name|Job name"}},
					{func() *huh.Form { return NewKeyDetailForm(&a, cat) }, []string{"Q1 · Where the key is, and how long retries last", "Key format"}},
					{func() *huh.Form { return NewForm(&a, cat) }, []string{
						"Q2 · What makes two requests the same?", "Included fields", "Volatile fields to exclude",
						"Q3 · Where do keys live?", "Q4 · How long are keys kept?", "TTL [", "Q5 · What does a repeat get?",
					}},
					{func() *huh.Form { return NewStepForm(&StepAnswers{}, cat, nil) }, []string{"Q6 · Downstream step 1", "Step name"}},
				}
				for _, st := range stages {
					all := views(st.form(), size[0], size[1])
					// The stage's first title is the screen's first line.
					if first, _, _ := strings.Cut(strings.TrimSpace(onScreen(all[0], size[1])), "\n"); !strings.Contains(first, strings.Split(st.want[0], "|")[0]) {
						t.Errorf("%dx%d: the screen starts %q, not with %q:\n%s", size[0], size[1], first, st.want[0], all[0])
					}
					for _, v := range all {
						if h := lipgloss.Height(v); h > size[1] {
							t.Errorf("%dx%d: a view of %d lines:\n%s", size[0], size[1], h, v)
						}
						for line := range strings.SplitSeq(v, "\n") {
							if w := lipgloss.Width(line); w > size[0] {
								t.Errorf("%dx%d: a line of %d columns: %q", size[0], size[1], w, line)
							}
						}
					}
					joined := strings.Join(all, "\n")
					for _, s := range st.want {
						// "a|b": one of them, the one the source asks.
						if !slices.ContainsFunc(strings.Split(s, "|"), func(s string) bool { return strings.Contains(joined, s) }) {
							t.Errorf("%dx%d: %q never on screen:\n%s", size[0], size[1], s, joined)
						}
					}
				}
			})
		}
	}
}

// A long multi-select shows maxListed options, one line each, from the top
// of its list even when its first chosen option is further down.
func TestMultiListedShowsOneLineEach(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	last := cat.VolatileFields[len(cat.VolatileFields)-1].Name
	a := Answers{Key: KeyAnswers{Source: "webhook", Provider: "stripe"}, Hash: HashAnswers{Exclude: []string{last}}}
	v := views(NewForm(&a, cat), 80, 24)[0]
	var bullets []string
	for line := range strings.SplitSeq(v, "\n") {
		if strings.Contains(line, "• ") || strings.Contains(line, "✓ ") {
			bullets = append(bullets, line)
		}
	}
	if len(bullets) != maxListed {
		t.Fatalf("%d options on screen, want %d, one line each:\n%s", len(bullets), maxListed, v)
	}
	if first := cat.VolatileFields[0].Name; !strings.Contains(bullets[0], first) {
		t.Errorf("the list starts at %q, not at its first option %s:\n%s", bullets[0], first, v)
	}
	if !strings.Contains(v, "…") {
		t.Errorf("no label cut to the width:\n%s", v)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"timestamp", 20, "timestamp"},
		{"timestamp", 9, "timestamp"},
		{"timestamp", 5, "time…"},
		{"a—b—c", 4, "a—b…"},
		{"abc", 0, "abc"},
	} {
		if got := cut(tc.s, tc.n); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// An error longer than the help it replaces does not push the group's
// first line off the screen: the form is laid out again for it.
func TestFormFitsWithAnError(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	a := Answers{Operation: "op", Key: KeyAnswers{Source: "client", Header: "Idempotency-Key", Scope: "tenant_id", Format: "{user_id}"}}
	m := fit(NewKeyDetailForm(&a, cat))
	m.Init()
	const w, h = 80, 16
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	v := m.View()
	if !strings.Contains(v, "is rejected") {
		t.Fatalf("no error on screen:\n%s", v)
	}
	if n := lipgloss.Height(v); n > h {
		t.Errorf("a view of %d lines on a screen of %d:\n%s", n, h, v)
	}
	if first, _, _ := strings.Cut(strings.TrimSpace(onScreen(v, h)), "\n"); !strings.Contains(first, "Q1 · Where the key is") {
		t.Errorf("the screen starts %q:\n%s", first, onScreen(v, h))
	}
}

// The key's questions say what they cannot show of a provider's key: its
// other parts and its batch at the name, what its IDs are unique within
// at the scope.
func TestKeyFormsNoteTheProvidersKey(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct {
		provider string
		form     func(*Answers, *rules.Catalog) *huh.Form
		want     []string
	}{
		{"adyen", NewKeyDetailForm, []string{"made of psp_reference (body /NotificationRequestItem/pspReference) and event_code (body /NotificationRequestItem/eventCode)", "A delivery is a batch (the array at /notificationItems)"}},
		{"github", NewKeyForm, []string{"GitHub webhooks: IDs are unique only within the hook (header X-GitHub-Hook-ID)"}},
	} {
		a := Answers{Operation: "op", Key: KeyAnswers{Source: "webhook", Provider: tc.provider, Scope: "unscoped"}}
		flat := strings.Join(strings.Fields(escapes.ReplaceAllString(strings.Join(views(tc.form(&a, cat), 120, 40), "\n"), "")), " ")
		for _, w := range tc.want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s: the key's questions lack %q:\n%s", tc.provider, w, flat)
			}
		}
	}
}

// escapes matches terminal styling, to read a view as text.
var escapes = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")

// A list that opens a group (joined to the group's note) is cut and
// scrolled like any other: the queue providers, one line each, maxListed
// of them.
func TestPrefacedListKeepsItsWrapper(t *testing.T) {
	t.Parallel()
	a := Answers{Operation: "op", Key: KeyAnswers{Source: "queue"}}
	v := escapes.ReplaceAllString(views(NewKeyForm(&a, rules.Default()), 80, 24)[0], "")
	var options []string
	for line := range strings.SplitSeq(v, "\n") {
		if strings.Contains(line, "suggested TTL") || strings.HasSuffix(strings.TrimSpace(line), "…") {
			options = append(options, line)
		}
	}
	if len(options) != maxListed {
		t.Errorf("%d option lines, want %d, one line each:\n%s", len(options), maxListed, v)
	}
	// A select's label is cut only where the screen ends: it has no
	// check mark before it.
	src := views(NewSourceForm(&Answers{Operation: "op"}, rules.Default()), 80, 24)[0]
	if want := "The client sends a key per logical action (Idempotency-Key header)"; !strings.Contains(src, want) {
		t.Errorf("the source label is cut, want %q:\n%s", want, src)
	}
}

// A scheduled job's Q2 speaks of its parameters, not of a request.
func TestCronHashSpeaksOfParameters(t *testing.T) {
	t.Parallel()
	a := Answers{Operation: "op", Key: KeyAnswers{Source: "cron", Job: "j", Schedule: "1d", Scope: "unscoped"}}
	flat := strings.Join(strings.Fields(escapes.ReplaceAllString(strings.Join(views(NewForm(&a, rules.Default()), 80, 24), "\n"), "")), " ")
	for _, w := range []string{"A fingerprint of the job's parameters", "Same key, different parameters?"} {
		if !strings.Contains(flat, w) {
			t.Errorf("Q2 lacks %q:\n%s", w, flat)
		}
	}
}

// Accessible mode prints each field's description before asking it, as the
// terminal shows it under the title; the scope's names the provider chosen
// a moment before, in the same form.
func TestAccessibleExplains(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	ask := func(f *huh.Form, lines ...string) string {
		t.Helper()
		var out strings.Builder
		in := strings.NewReader(strings.Join(lines, "\n") + "\n")
		if err := RunWith(t.Context(), in, &out, true)(f); err != nil {
			t.Fatalf("form: %v\n%s", err, out.String())
		}
		return out.String()
	}
	var preset string
	out := ask(NewStartForm(&Answers{}, cat, &preset), "create-payment", "", "")
	for _, want := range []string{
		"The state-changing operation this design is for, e.g. create-payment.\nOperation",
		"One line for the spec's Operation section.\nWhat does it do?",
		"A preset fills every later answer with the pattern's; you can change each one.\nStart from a common pattern?",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the start form lacks %q:\n%s", want, out)
		}
	}

	github := slices.IndexFunc(providersOfKind(cat, "webhook"), func(p rules.Provider) bool { return p.ID == "github" })
	if github < 0 {
		t.Fatal("no github webhook provider in the catalogue")
	}
	a := Answers{Operation: "op", Key: KeyAnswers{Source: "webhook", Provider: "stripe", Scope: "unscoped"}}
	out = ask(NewKeyForm(&a, cat), strconv.Itoa(github+1), "")
	if want := "IDs are unique only within the hook (header X-GitHub-Hook-ID)"; a.Key.Provider != "github" || !strings.Contains(out, want) {
		t.Errorf("with GitHub chosen (%s), the scope question lacks %q:\n%s", a.Key.Provider, want, out)
	}
}

// A description that follows the answers is read again when its field is
// reached on the terminal.
func TestExplainedFieldRefreshesOnFocus(t *testing.T) {
	t.Parallel()
	text := "before"
	f := explainBy(func() string { return text }, huh.NewInput().Title("Scope"))
	if v := f.View(); !strings.Contains(v, "before") {
		t.Fatalf("view lacks the description:\n%s", v)
	}
	text = "after"
	f.Focus()
	if v := f.View(); !strings.Contains(v, "after") || strings.Contains(v, "before") {
		t.Errorf("view after focus = %q, want the new description only", v)
	}
}
