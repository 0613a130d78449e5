package design

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// The anti-pattern that answering "no" to mismatch detection runs into.
const antiNoMismatch = "no-mismatch-detection"

// Interview asks the whole design interview and writes every answer into a,
// in the order of the six-question decision sequence:
//
//  1. NewStartForm: the operation, what it does, and a preset to start from.
//     A chosen preset is applied (ApplyPreset) before anything else is
//     built, so every later default is the preset's.
//  2. NewSourceForm: the kind of operation, and Q1, who supplies the key.
//  3. NewKeyForm: the Q1 follow-ups that apply to that source, the scope,
//     and who else retries the operation; then NewKeyDetailForm: where the
//     key is read, its format, its time zone, and how long retries last.
//  4. NewForm: Q2 to Q5.
//  5. Q6: one NewStepForm per downstream step already in a, then
//     NewAddStepForm and a NewStepForm for each step added, until the
//     answer is no.
//
// It asks in stages because later choices and defaults depend on earlier
// answers (the provider bounds the TTL), and because huh's accessible mode
// asks every field of a form, hidden groups included: building each stage
// from the answers so far gives the terminal form and accessible mode the
// same branching. run runs one form on the caller's streams (see RunWith);
// its error, huh.ErrUserAborted included, is returned unchanged.
func Interview(a *Answers, cat *rules.Catalog, run func(*huh.Form) error) error {
	var preset string
	if err := run(NewStartForm(a, cat, &preset)); err != nil {
		return err
	}
	if preset != "" {
		if err := ApplyPreset(cat, preset, a); err != nil {
			return err
		}
		// A preset is for any operation of its shape; the name says what
		// this one is ("adyen payment events") and what its job is called.
		if a.Kind == "other" {
			a.Kind = kindOf(a.Operation)
		}
		if a.Key.Source == spec.SourceCron {
			a.Key.Job = jobOf(a.Operation, a.Key.Job)
		}
	}
	if err := run(NewSourceForm(a, cat)); err != nil {
		return err
	}
	if err := run(NewKeyForm(a, cat)); err != nil {
		return err
	}
	detail, settle := newKeyDetailForm(a, cat)
	if err := run(detail); err != nil {
		return err
	}
	settle()
	auto, shown := a.Collision.RetryAfter == "", formRetryAfter(a, cat)
	if err := run(NewForm(a, cat)); err != nil {
		return err
	}
	if a.Lease.Duration == cat.Defaults.LeaseTTL.String() {
		a.Lease.Duration = "" // the catalogue's, followed when it changes
	}
	if auto && a.Collision.RetryAfter == shown {
		// The default, left as the answers file leaves it: Decide then
		// derives it from the lease as answered, not as first shown.
		a.Collision.RetryAfter = ""
	}
	return askSteps(a, cat, run)
}

// askSteps walks Q6: the steps a already has (an empty name drops one),
// then new steps for as long as the person adds them.
func askSteps(a *Answers, cat *rules.Catalog, run func(*huh.Form) error) error {
	var kept []StepAnswers
	var names []string
	step := func(s StepAnswers) error {
		if err := run(NewStepForm(&s, cat, names)); err != nil {
			return err
		}
		if s.Name != "" {
			if err := run(NewStepDetailForm(&s)); err != nil {
				return err
			}
			kept = append(kept, s)
			names = append(names, s.Name)
		}
		return nil
	}
	for _, s := range a.Downstream {
		if err := step(s); err != nil {
			return err
		}
	}
	for rules.CheckSteps(len(kept)+1) == nil {
		var more bool
		if err := run(NewAddStepForm(&more, len(kept))); err != nil {
			return err
		}
		if !more {
			break
		}
		if err := step(StepAnswers{}); err != nil {
			return err
		}
	}
	a.Downstream = kept
	return nil
}

// RunWith returns the run function Interview takes, bound to the command's
// streams. The terminal form gets the streams as they are (Bubble Tea needs
// the real terminal to switch it to raw mode). Accessible mode reads them one
// line at a time: huh starts a new buffered scanner for every prompt, which
// would swallow the answers to the later prompts of piped input. When the
// input ends while a prompt waits for an answer, the form stops there and the
// error wraps huh.ErrUserAborted, instead of huh taking every remaining
// default, or re-asking a rejected one forever.
//
// ctx ends a form as Ctrl-C does, with huh.ErrUserAborted: in accessible
// mode the terminal is not in raw mode, so Ctrl-C is an interrupt signal
// that the command turns into ctx's end, while a prompt waits on a read
// that nothing else ends.
func RunWith(ctx context.Context, in io.Reader, out io.Writer, accessible bool) func(*huh.Form) error {
	if !accessible {
		return func(f *huh.Form) error { return runFitted(ctx, f, in, out) }
	}
	lines := &lineReader{r: in}
	// An interrupted prompt's goroutine may still write when the
	// interrupt does.
	out = &lockedWriter{w: out}
	return func(f *huh.Form) error {
		done := make(chan error, 1)
		go func() { done <- runAccessible(f, lines, out) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
			// The prompt's line stays unfinished: end it, so what the
			// command says next starts a line of its own.
			fmt.Fprintln(out)
			return fmt.Errorf("interrupted: %w", huh.ErrUserAborted)
		}
	}
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// runAccessible asks f's questions in accessible mode over lines.
func runAccessible(f *huh.Form, lines *lineReader, out io.Writer) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		end, ok := r.(inputEnded)
		if !ok {
			panic(r)
		}
		if errors.Is(end.err, io.EOF) {
			err = fmt.Errorf("the input ended before the interview did: %w", huh.ErrUserAborted)
			return
		}
		err = fmt.Errorf("reading answers: %w", end.err)
	}()
	return f.WithAccessible(true).WithInput(lines).WithOutput(out).Run()
}

// fitted is a form that is told the terminal is a line shorter than it
// is. huh sizes a tall group to the height it is given, then puts a blank
// line above its help, so a group given the whole height draws one line
// more than the screen has, and Bubble Tea drops the extra line from the
// top: the group's first line (the "idemkit design" title, a question's
// teaching note) never shows. Only the form is told: Bubble Tea's renderer
// keeps the last lines of a view that fit the height it knows, so it must
// know the real one. (A tea.WithFilter cannot do this: it changes the size
// for the renderer too, which then drops as many lines as the form saved.)
//
// huh also sizes a group for the footer it has when it is told the size:
// an error of two lines in place of the one-line help makes the view a
// line too tall again, so the form is told the size once more whenever
// its view outgrows the screen.
type fitted struct {
	*huh.Form
	size *tea.WindowSizeMsg // the terminal's
}

func fit(f *huh.Form) fitted { return fitted{Form: f, size: &tea.WindowSizeMsg{}} }

// Update hands msg to the form, a window size one line shorter, and lays
// the form out again when its view has outgrown the screen.
func (m fitted) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		*m.size = size
		return m, m.resize()
	}
	_, cmd := m.Form.Update(msg)
	if m.size.Height > 1 && lipgloss.Height(m.Form.View()) > m.size.Height {
		return m, tea.Batch(cmd, m.resize())
	}
	return m, cmd
}

// resize tells the form the terminal's size, a line shorter.
func (m fitted) resize() tea.Cmd {
	size := *m.size
	if size.Height > 1 {
		size.Height--
	}
	_, cmd := m.Form.Update(size)
	return cmd
}

// runFitted runs f on the terminal the way huh's Form.Run does, wrapped in
// fitted: submitting quits; Ctrl-C, an interrupt or ctx's end is
// huh.ErrUserAborted.
func runFitted(ctx context.Context, f *huh.Form, in io.Reader, out io.Writer) error {
	f.SubmitCmd, f.CancelCmd = tea.Quit, tea.Interrupt
	_, err := tea.NewProgram(fit(f), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)).Run()
	switch {
	case f.State == huh.StateAborted || errors.Is(err, tea.ErrInterrupted) || errors.Is(err, tea.ErrProgramKilled):
		return huh.ErrUserAborted
	case err != nil:
		return fmt.Errorf("run the form: %w", err)
	}
	return nil
}

// inputEnded is the panic lineReader stops a form with: huh's accessible
// prompts cannot return a read error, so it travels up to RunWith.
type inputEnded struct{ err error }

// lineReader hands out at most one line per Read and never reads ahead, so
// every huh prompt, and every later form, finds its own answer.
type lineReader struct {
	r       io.Reader
	partial bool // bytes of an unfinished line were handed out
}

// Read reads byte by byte up to the end of a line, so nothing after it is
// taken from r.
func (l *lineReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := l.r.Read(p[n : n+1])
		n += m
		if m == 1 {
			l.partial = p[n-1] != '\n'
			if !l.partial {
				return n, nil
			}
		}
		if err != nil {
			if n == 0 && !l.partial {
				panic(inputEnded{err})
			}
			// The last line had no newline: hand it out, then end.
			l.partial = false
			return n, err
		}
		if m == 0 {
			return n, nil
		}
	}
	return n, nil
}

// NewStartForm asks for the operation, what it does, and the preset to start
// from. The preset goes to *preset rather than into a because applying one
// replaces the answers: the caller applies it (Interview does, with
// ApplyPreset). The first choice, "", keeps the answers a already holds, so
// a design loaded from a spec is not lost by pressing Enter.
func NewStartForm(a *Answers, cat *rules.Catalog, preset *string) *huh.Form {
	keep := "none: start from the catalogue's defaults"
	if a.Key.Source != "" {
		keep = "keep the answers loaded"
		if a.Preset != "" {
			keep += " (from the " + a.Preset + " preset)"
		}
	}
	presets := []huh.Option[string]{huh.NewOption(keep, "")}
	for _, p := range cat.Presets {
		presets = append(presets, huh.NewOption(p.ID+": "+p.Title, p.ID))
	}
	return huh.NewForm(huh.NewGroup(lead(
		teach("idemkit design",
			"Six questions, in order: who supplies the key, what makes two requests the same, "+
				"where keys live and for how long, what a repeat gets, and how the key reaches every downstream call. "+
				"Enter keeps the value in [brackets]; a single - clears a text answer."),
		explain("The state-changing operation this design is for, e.g. create-payment.", huh.NewInput().
			Title(withDefault("Operation", a.Operation)).
			Value(&a.Operation).
			Validate(keepOr(func() string { return a.Operation }, checkRequired("an operation name")))),
		explain("One line for the spec's Operation section.", huh.NewInput().
			Title(withDefault("What does it do?", a.Description)).
			Accessor(clearable{&a.Description}).
			Validate(rules.CheckDescription)),
		explain("A preset fills every later answer with the pattern's; you can change each one.", newListed(huh.NewSelect[string]().
			Title(withDefault("Start from a common pattern?", presetDefault(a))),
			preset, presets)),
	)...))
}

// presetDefault names what Enter keeps at the preset question.
func presetDefault(a *Answers) string {
	if a.Key.Source != "" {
		return "keep"
	}
	return "none"
}

// jobOf names a scheduled job after its operation (nightly-invoices), or
// keeps name when the operation's makes no key part.
func jobOf(operation, name string) string {
	if slug, err := spec.Slug(operation); err == nil && rules.CheckKeyPart("job", slug) == nil {
		return slug
	}
	return name
}

// Operation kinds the spec knows; payment and billing usually get an audit row.
var operationKinds = []string{"payment", "billing", "email", "other"}

// kindWords are the beginnings of words in an operation's name that say
// its kind, so that "create payment" starts as a payment.
var kindWords = []struct{ kind, stem string }{
	{"payment", "pay"}, {"payment", "payment"}, {"payment", "payout"}, {"payment", "payroll"}, {"payment", "charg"}, {"payment", "refund"}, {"payment", "transfer"},
	{"payment", "captur"}, {"payment", "authori"}, {"payment", "withdraw"}, {"payment", "deposit"},
	{"billing", "bill"}, {"billing", "invoic"}, {"billing", "subscri"}, {"billing", "renew"}, {"billing", "dunning"},
	{"email", "email"}, {"email", "mail"}, {"email", "notif"}, {"email", "newsletter"},
}

// kindOf guesses an operation's kind from its name: the first word that
// names one decides, "other" when none does.
func kindOf(operation string) string {
	words := strings.FieldsFunc(strings.ToLower(operation), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	for _, w := range words {
		for _, k := range kindWords {
			// A stem of three letters names the word itself (pay, not payload).
			if w == k.stem || len(k.stem) > 3 && strings.HasPrefix(w, k.stem) {
				return k.kind
			}
		}
	}
	return "other"
}

// NewSourceForm asks what kind of operation this is and Q1, who supplies the
// key. The catalogue's rejected sources (a key the server makes per attempt)
// are offered so that the reason can be taught: choosing one fails with the
// anti-pattern's reason.
func NewSourceForm(a *Answers, cat *rules.Catalog) *huh.Form {
	if a.Kind == "" {
		a.Kind = kindOf(a.Operation)
	}
	kindOpts := make([]huh.Option[string], 0, len(operationKinds)+1)
	for _, k := range operationKinds {
		label := k
		if slices.Contains(cat.Defaults.AuditRowFor, k) {
			label += " (gets a Postgres audit row by default)"
		}
		kindOpts = append(kindOpts, huh.NewOption(label, k))
	}
	if !slices.Contains(operationKinds, a.Kind) {
		kindOpts = append(kindOpts, huh.NewOption(a.Kind, a.Kind))
	}

	if a.Key.Source == "" {
		for _, s := range cat.KeySources {
			if !s.Rejected {
				a.Key.Source = s.ID
				break
			}
		}
	}
	srcOpts := make([]huh.Option[string], 0, len(cat.KeySources))
	for _, s := range cat.KeySources {
		label := s.Title
		if s.Rejected {
			label = rejectedLabel(cat, s.AntiPattern)
		}
		srcOpts = append(srcOpts, huh.NewOption(fmt.Sprintf("%-9s %s", s.ID, label), s.ID))
	}
	return huh.NewForm(huh.NewGroup(
		newListed(huh.NewSelect[string]().
			Title(withDefault("What kind of operation is it?", a.Kind)),
			&a.Kind, kindOpts),
		preface(teach("Q1 · Who supplies the key?",
			"The key must be the same on every retry of one logical action, so it comes from whoever "+
				"retries: the client, the webhook sender, the queue, the workflow engine or the scheduler."),
			newListed(huh.NewSelect[string]().
				Title(withDefault("Who initiates the operation?", a.Key.Source)).
				Validate(func(id string) error {
					if s, ok := cat.KeySource(id); ok && s.Rejected {
						return rejected(cat, "a "+id+" key", s.AntiPattern)
					}
					return nil
				}),
				&a.Key.Source, srcOpts)),
	))
}

// NewKeyForm asks the Q1 follow-ups that apply to a.Key.Source: the provider
// for webhooks and queues, the header for clients, workflow name, step,
// parameter and run timeout for workflow steps, job and slot for cron jobs;
// then the scope of stored keys and who else retries the operation. Answers
// that belong to another source are dropped, so the spec never carries a
// stale provider.
func NewKeyForm(a *Answers, cat *rules.Catalog) *huh.Form {
	k := &a.Key
	src := k.Source
	if src != "client" {
		k.Header = ""
	} else if k.Header == "" {
		k.Header = "Idempotency-Key"
	}
	if src != "workflow" {
		k.Workflow, k.Step, k.Param = "", "", ""
	}
	if src != "cron" {
		k.Job, k.Schedule, k.TimeZone, k.BusinessDate = "", "", "", false
	}
	if src != spec.SourceClient && src != spec.SourceWebhook && src != spec.SourceQueue {
		k.In, k.Name = "", ""
	}
	providers := providersOfKind(cat, src)
	if len(providers) == 0 {
		k.Provider = ""
	}
	// Answers from a preset or a spec may name providers as people write
	// them ("Stripe webhooks"): the menus hold IDs, so without this the
	// choice would fall back to the first provider.
	resolveProviders(cat, k)

	title, text := "Q1 · The key", ""
	if s, ok := cat.KeySource(src); ok {
		title = "Q1 · " + s.Title
		text = fmt.Sprintf("Key format %s, for example %s. %s", s.Format, s.Example, s.Description)
	}
	fields := []huh.Field{teach(title, text)}

	if len(providers) > 0 {
		opts := make([]huh.Option[string], 0, len(providers))
		for _, p := range providers {
			opts = append(opts, huh.NewOption(providerLabel(p), p.ID))
		}
		optional := src == spec.SourceWorkflow || src == spec.SourceCron
		if optional {
			// The engine or scheduler is optional: its window bounds the TTL
			// when named, the answers' own window otherwise.
			opts = append([]huh.Option[string]{huh.NewOption("none named: the window is given below", "")}, opts...)
		}
		if !slices.ContainsFunc(providers, func(p rules.Provider) bool { return p.ID == k.Provider }) {
			// Another source's provider (a queue preset's, the source
			// changed to cron) is no answer here.
			k.Provider = ""
			if !optional {
				k.Provider = providers[0].ID
			}
		}
		shown := k.Provider
		if optional && shown == "" {
			shown = "none"
		}
		fields = append(fields, explain("Its retry window bounds the TTL (Q4).", newListed(huh.NewSelect[string]().
			Title(withDefault("Which provider?", shown)),
			&k.Provider, opts)))
	}

	switch src {
	case "client":
		fields = append(fields, explain("The client makes one UUID per logical action (a button press) and sends it on every retry.", huh.NewInput().
			Title(withDefault("Header that carries the key", k.Header)).
			Value(&k.Header).
			Validate(keepOr(func() string { return k.Header }, checkHeader))))
	case "workflow":
		fields = append(fields,
			explain("The workflow ID is the key of the whole run; each step adds its own name.", huh.NewInput().
				Title(withDefault("Workflow name", k.Workflow)).
				Value(&k.Workflow).
				Validate(keepOr(func() string { return k.Workflow }, checkKeyPart("workflow")))),
			huh.NewInput().
				Title(withDefault("Step name", k.Step)).
				Value(&k.Step).
				Validate(keepOr(func() string { return k.Step }, checkKeyPart("step"))),
			explain("A field that is the same on every retry of the step, e.g. order_id; never a timestamp.", huh.NewInput().
				Title(withDefault("Deterministic parameter", k.Param)).
				Value(&k.Param).
				Validate(keepOr(func() string { return k.Param }, checkKeyPart("parameter")))),
			explain("The engine retries a failed step until the workflow times out: that is the retry window keys must outlast.", &refreshed{
				Input: huh.NewInput().
					Title(withDefault("Workflow run timeout", k.Window)).
					Value(&k.Window).
					Validate(keepOr(func() string { return k.Window }, checkRunTimeout)),
				// The engine is chosen above in this group: one whose
				// retries end (Step Functions' 14d) offers its window.
				refresh: func(in *huh.Input) {
					if p, ok := cat.Provider(k.Provider); ok && k.Window == "" && p.RetryWindow > 0 {
						k.Window = p.RetryWindow.String()
						in.Title(withDefault("Workflow run timeout", k.Window)).Value(&k.Window)
					}
				},
			}))
	case "cron":
		if k.Job == "" {
			k.Job = jobOf(a.Operation, "")
		}
		fields = append(fields,
			huh.NewInput().
				Title(withDefault("Job name", k.Job)).
				Value(&k.Job).
				Validate(keepOr(func() string { return k.Job }, checkKeyPart("job"))),
			explain("The scheduled time is floored to its slot (1h for an hourly job), so two daemons firing the same slot share a key.", huh.NewInput().
				Title(withDefault("Slot length", k.Schedule)).
				Value(&k.Schedule).
				Validate(keepOr(func() string { return k.Schedule }, checkDuration))),
			explain("An IANA zone (Europe/Berlin); slots are floored on its wall clock.", huh.NewInput().
				Title(withDefault("Time zone the schedule is written in", orWord(k.TimeZone, "UTC"))).
				Accessor(clearable{&k.TimeZone}).
				Validate(keepOr(func() string { return orWord(k.TimeZone, "UTC") }, checkTimeZone))),
			explain("For a 1d slot: the date, in that zone, of the day the run was scheduled for, so a run that starts late after midnight still works that day.", huh.NewConfirm().
				Title("Key a daily job on its business date?").
				Value(&k.BusinessDate)))
	}

	// The provider is chosen in this group: the scope's help names what
	// the chosen one's IDs are unique within, when it is not everything.
	scopeHelp := func() string {
		help := "Two tenants may send the same key; scoping keeps them apart. unscoped opts out on purpose."
		if p, ok := cat.Provider(k.Provider); ok && p.Key.Scope != "" {
			help += " " + p.Name + ": IDs are unique only within " + p.Key.Scope + "."
		}
		return help
	}
	fields = append(fields, explainBy(scopeHelp, huh.NewInput().
		Title(withDefault("Scope stored keys by (a tenant field, or unscoped)", k.Scope)).
		Value(&k.Scope).
		Validate(keepOr(func() string { return k.Scope }, checkScope))))

	if others := retriers(cat, src); len(others) > 0 && (src == spec.SourceClient || len(k.RetriedBy) > 0) {
		// A reload or a caller's retry policy repeats a client's request;
		// a sender, a broker, an engine or a scheduler repeats the others
		// itself, so they are asked only to edit a list they already have.
		opts := make([]huh.Option[string], 0, len(others))
		for _, p := range others {
			opts = append(opts, huh.NewOption(providerLabel(p), p.ID))
		}
		fields = append(fields, explain("A retry policy or a reload also repeats the operation; the TTL must outlast the longest window of them all.", newMultiListed(huh.NewMultiSelect[string]().
			Title("Who else retries it?").
			Accessor(nameList{&k.RetriedBy}), opts)))
	}
	return huh.NewForm(huh.NewGroup(lead(fields...)...))
}

// NewKeyDetailForm asks, for every source, where the key is read, its
// format and how long retries of the operation last (the retry window the
// TTL must cover, with where the number comes from), and a scheduled job's
// time zone and business date. Each is prefilled with what the catalogue
// and the earlier answers give, so Enter keeps the derived answer; an
// answer equal to it is not stored (keepDerived), and the spec follows the
// catalogue when the catalogue is corrected.
func NewKeyDetailForm(a *Answers, cat *rules.Catalog) *huh.Form {
	f, _ := newKeyDetailForm(a, cat)
	return f
}

// newKeyDetailForm is NewKeyDetailForm with what to do once it has run:
// drop the answers that only repeat what would be derived.
func newKeyDetailForm(a *Answers, cat *rules.Catalog) (*huh.Form, func()) {
	k := &a.Key
	derived, _ := derivedKey(*a, cat)
	b := boundOf(cat, *k)
	var fields []huh.Field
	fields = append(fields, teach("Q1 · Where the key is, and how long retries last",
		"The spec records where the key is read and its format, so the handler reads it from the right place. "+
			"The retry window is how long a repeat of one action can still arrive; the TTL (Q4) must cover it."))
	if k.Source == spec.SourceWebhook || k.Source == spec.SourceQueue {
		if k.In == "" {
			k.In, k.Name = derived.In, derived.Name
		}
		kinds := locationKinds(k.Source, k.In)
		if k.In == "" {
			k.In = kinds[0]
		}
		opts := make([]huh.Option[string], 0, len(kinds))
		for _, kind := range kinds {
			opts = append(opts, huh.NewOption(locationLabel(kind), kind))
		}
		// The name shown belongs to the location chosen: when the person
		// picks another one and has not typed a name, the provider's name
		// there (or none) replaces it.
		nameKind, shownName := k.In, k.Name
		name := explain(strings.TrimSpace(locationHelp(k.Source)+" "+providerKeyNote(cat, k.Provider)), &refreshed{Input: huh.NewInput().
			Title(withDefault("Its name there", k.Name)).
			Value(&k.Name).
			Validate(keepOr(func() string { return k.Name }, checkOptional(func(name string) error {
				return rules.CheckLocation(rules.Location{Kind: k.In, Name: name})
			}))),
			refresh: func(in *huh.Input) {
				if k.In == nameKind || k.Name != shownName {
					return
				}
				k.Name = providerLocation(cat, k.Provider, k.In)
				nameKind, shownName = k.In, k.Name
				in.Title(withDefault("Its name there", k.Name)).Value(&k.Name)
			}})
		fields = append(fields,
			explain(map[string]string{
				spec.SourceWebhook: "Where the sender puts its event ID: Stripe's is the body's /id, GitHub's the X-GitHub-Delivery header.",
				spec.SourceQueue:   "A broker record may carry an event ID header (attribute) besides its own message ID (record).",
			}[k.Source], newListed(huh.NewSelect[string]().
				Title(withDefault("Where is the key read?", k.In)),
				&k.In, opts)),
			name)
	}
	if k.Format == "" {
		k.Format = derived.Format
	}
	// The format shown is the one derived from the answers until the
	// person types their own; reaching it after changing the location
	// shows the format derived from the new one.
	shown, lastDerived := k.Format, derived.Format
	format := explain("Placeholders in braces. Never a value made per attempt, never who acts alone ({user_id}:{date}).", &refreshed{Input: huh.NewInput().
		Title(withDefault("Key format", k.Format)).
		Value(&k.Format).
		Validate(keepOr(func() string { return k.Format }, func(f string) error { return checkFormat(cat, k.Source, f) })),
		refresh: func(in *huh.Input) {
			if k.Format != shown || shown != lastDerived {
				return
			}
			b := *a
			dropProviderLocation(&b.Key, cat)
			if d, err := derivedKey(b, cat); err == nil {
				k.Format, shown, lastDerived = d.Format, d.Format, d.Format
				in.Title(withDefault("Key format", k.Format)).Value(&k.Format)
			}
		}})
	fields = append(fields, format)
	settle := func() {
		if k.Format == shown && k.Format == lastDerived {
			// Kept as shown: derive it again from the final answers.
			k.Format = ""
		}
		keepDerived(a, cat)
	}
	if k.Source == spec.SourceWorkflow {
		// The run timeout, asked with the workflow, is the window.
		return huh.NewForm(huh.NewGroup(lead(fields...)...)), settle
	}
	window := k.Window
	if window == "" && b.window > 0 {
		window = b.window.String()
	}
	k.Window = window
	fields = append(fields,
		explain(b.note, huh.NewInput().
			Title(withDefault("Retry window: how long can a repeat arrive?", k.Window)).
			Accessor(clearable{&k.Window}).
			Validate(keepOr(func() string { return k.Window }, checkOptional(func(s string) error {
				_, err := rules.CheckTTL(s)
				return err
			})))),
		explain(map[string]string{
			spec.SourceClient:  "E.g. the client SDK's retry policy; empty when it is the catalogue's.",
			spec.SourceWebhook: "E.g. the sender's documented retry schedule; empty when it is the catalogue's.",
			spec.SourceQueue:   "E.g. the queue's retention or its redrive policy; empty when it is the catalogue's.",
			spec.SourceCron:    "E.g. how long the scheduler catches up a missed run; empty when it is the catalogue's.",
		}[k.Source], huh.NewInput().
			Title(withDefault("Where does that number come from?", k.WindowFrom)).
			Accessor(clearable{&k.WindowFrom})))
	return huh.NewForm(huh.NewGroup(lead(fields...)...)), settle
}

// locationKinds lists the places a source's key can be read: a webhook
// delivery's header or body, a broker record's own field, an attribute or
// the body. have, a kind the answers already hold, is kept on the list.
func locationKinds(src, have string) []string {
	kinds := []string{rules.LocationHeader, rules.LocationBody}
	if src == spec.SourceQueue {
		kinds = []string{rules.LocationRecord, rules.LocationAttribute, rules.LocationBody}
	}
	if have != "" && !slices.Contains(kinds, have) {
		kinds = append(kinds, have)
	}
	return kinds
}

// locationLabel says what a location kind is, for its menu entry.
func locationLabel(kind string) string {
	what := map[string]string{
		rules.LocationHeader:    "an HTTP header of the delivery",
		rules.LocationBody:      "a field of the JSON body, as a JSON pointer",
		rules.LocationAttribute: "a message attribute, property or record header",
		rules.LocationParameter: "a workflow or activity parameter",
		rules.LocationRecord:    "a field the broker sets on the record (MessageId, offset)",
	}[kind]
	return fmt.Sprintf("%-9s %s", kind, what)
}

// locationHelp says what names a source's key locations take.
func locationHelp(src string) string {
	if src == spec.SourceQueue {
		return "A record field (MessageId), an attribute name, or a JSON pointer into the body (/id)."
	}
	return "A header name (X-GitHub-Delivery) or a JSON pointer into the body (/id)."
}

// providerKeyNote says what the name question cannot show of a provider's
// key: the other values it is made of and the batch its events come in.
func providerKeyNote(cat *rules.Catalog, provider string) string {
	p, ok := cat.Provider(provider)
	if !ok {
		return ""
	}
	var notes []string
	if len(p.Key.From) > 1 {
		parts := make([]string, len(p.Key.From))
		for i, l := range p.Key.From {
			parts[i] = fmt.Sprintf("%s (%s %s)", l.Part, l.Kind, l.Name)
		}
		list := strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
		notes = append(notes, fmt.Sprintf("Its key is %s, made of %s.", p.Key.Format, list))
	}
	if p.Key.Batch {
		items := "the body, an array"
		if p.Key.Items != "" {
			items = "the array at " + p.Key.Items
		}
		notes = append(notes, fmt.Sprintf("A delivery is a batch (%s): each event is keyed and claimed on its own, and body pointers are within one event.", items))
	}
	return strings.Join(notes, " ")
}

// providerLocation is where the provider puts its key in a location of the
// given kind, or "" when the catalogue knows none there.
func providerLocation(cat *rules.Catalog, provider, kind string) string {
	if p, ok := cat.Provider(provider); ok {
		for _, l := range p.Key.From {
			if l.Kind == kind {
				return l.Name
			}
		}
	}
	return ""
}

// derivedKey is the key Decide makes from a's answers without a format of
// their own.
func derivedKey(a Answers, cat *rules.Catalog) (spec.Key, error) {
	a.Key.Format = ""
	d := &decider{a: a, cat: cat, s: &spec.Spec{}}
	if err := d.operation(); err != nil {
		d.s.Slug = "operation"
	}
	err := d.key()
	return d.s.Key, err
}

// dropProviderLocation drops a key location that is only where the
// provider puts its key, or has no name: the key is then the provider's,
// whole. Adyen's is made of two body fields; named by the first of them,
// it would be that field alone.
func dropProviderLocation(k *KeyAnswers, cat *rules.Catalog) {
	if k.Source == spec.SourceClient {
		return
	}
	if p, ok := cat.Provider(k.Provider); k.Name == "" || ok && len(p.Key.From) > 0 && p.Key.From[0].Kind == k.In && p.Key.From[0].Name == k.Name {
		k.In, k.Name = "", ""
	}
}

// keepDerived drops the key answers that only repeat what the catalogue
// and the other answers give, so the answers (and the spec) follow the
// catalogue: the location of a provider's key, the derived format, the
// provider's own window, UTC.
func keepDerived(a *Answers, cat *rules.Catalog) {
	k := &a.Key
	dropProviderLocation(k, cat)
	format := k.Format
	k.Format = ""
	if derived, err := derivedKey(*a, cat); err == nil {
		if format == derived.Format {
			format = ""
		}
	}
	k.Format = format
	w := k.Window
	k.Window = ""
	if b := boundOf(cat, *k); w != "" && (b.window.String() == w || b.window > 0 && mustDuration(w) == b.window) && k.WindowFrom == "" {
		w = ""
	}
	k.Window = w
	if k.TimeZone == "UTC" {
		k.TimeZone = ""
	}
}

func mustDuration(s string) rules.Duration {
	d, _ := rules.ParseDuration(s)
	return d
}

// checkFormat refuses a key format the way Decide does: a value made per
// attempt, or who acts without what they do.
func checkFormat(cat *rules.Catalog, src, f string) error {
	if m := perAttempt.FindString(f); m != "" || src != spec.SourceClient && serverMade.MatchString(f) {
		return rejected(cat, "a key with "+orWord(m, serverMade.FindString(f)), "per-attempt-key")
	}
	if err := rules.CheckKeyFormat(f); errors.Is(err, rules.ErrIdentityKey) {
		return rejected(cat, "key format "+f, "key-per-user")
	} else if err != nil {
		return err
	}
	return nil
}

func checkTimeZone(s string) error {
	if _, err := time.LoadLocation(s); err != nil || s == "Local" {
		return fmt.Errorf("%q is not an IANA time zone, e.g. Europe/Berlin or UTC", s)
	}
	return nil
}

// NewForm asks Q2 to Q5: the canonical hash, the store, the TTL and the
// collision policy. It expects the answers of the earlier stages (the source,
// the provider), which decide its defaults and its checks. Values a holds
// are shown prefilled; empty ones are filled with the catalogue's defaults,
// so what the person accepts is what they saw. Use Interview for the whole
// sequence.
//
// Each question's teaching note heads a group short enough for a 24-line
// terminal: huh scrolls a taller group to the field being answered, which
// pushed the note (and at 80x24 the first question's own title) off the
// screen. So a question with many fields goes on over a second group.
func NewForm(a *Answers, cat *rules.Catalog) *huh.Form {
	var groups []*huh.Group
	for _, g := range [][]*huh.Group{hashGroups(a, cat), {storeGroup(a, cat)}, ttlGroups(a, cat), collisionGroups(a, cat)} {
		groups = append(groups, g...)
	}
	return huh.NewForm(groups...)
}

// groupsOf makes a group of each non-empty list of fields.
func groupsOf(fields ...[]huh.Field) []*huh.Group {
	var out []*huh.Group
	for _, f := range fields {
		if len(f) > 0 {
			out = append(out, huh.NewGroup(lead(f...)...))
		}
	}
	return out
}

func hashGroups(a *Answers, cat *rules.Catalog) []*huh.Group {
	h := &a.Hash
	if h.DetectMismatch == nil {
		h.DetectMismatch = new(true)
	}
	include := fieldList{&h.Include}
	fields := []huh.Field{
		teach("Q2 · What makes two requests the same?", hashHelp(a.Key.Source)),
		explain(includeHelp(a.Key.Source), huh.NewInput().
			Title(withDefault("Included fields, comma separated", include.Get())).
			Accessor(include).
			Validate(keepOr(include.Get, checkFieldNames))),
	}
	if len(cat.VolatileFields) > 0 {
		opts := make([]huh.Option[string], 0, len(cat.VolatileFields))
		for _, v := range cat.VolatileFields {
			opts = append(opts, huh.NewOption(v.Name+": "+v.Reason, v.Name))
		}
		fields = append(fields, newMultiListed(huh.NewMultiSelect[string]().
			Title("Volatile fields to exclude").
			Accessor(volatileChoice{h, cat}).
			Validate(func(names []string) error { return notIncluded(h, names) }), opts))
	}
	other := otherExcluded{h, cat}
	more := []huh.Field{
		explain("Fields that change between retries of the same action; the spec keeps each reason.", huh.NewInput().
			Title(withDefault("Other excluded fields (name: why it is noise, comma separated)", other.Get())).
			Accessor(other).
			Validate(keepOr(other.Get, func(s string) error {
				names, reasons, err := parseExcluded(s)
				if err != nil {
					return err
				}
				for _, n := range names {
					if reasons[n] == "" && !isVolatile(cat, n) {
						return fmt.Errorf("say why %s is noise for this operation, as %s: reason; the catalogue does not know it", n, n)
					}
				}
				return notIncluded(h, names)
			}))),
		// Every select binds its value before its options: huh scrolls the
		// list to the bound value when the options arrive, and bound the
		// other way round it scrolls to the option equal to the zero value
		// (here "process it anyway") and hides the ones above it.
		newListed(huh.NewSelect[bool]().
			Title("Same key, different "+payloadWord(a.Key.Source)+"?").
			Validate(func(detect bool) error {
				if detect {
					return nil
				}
				return rejected(cat, "processing a different payload under a known key", antiNoMismatch)
			}),
			h.DetectMismatch, []huh.Option[bool]{
				huh.NewOption("refuse it: never processed, logged loudly (Q5 says how)", true),
				huh.NewOption("process it anyway", false),
			}),
	}
	return groupsOf(fields, more)
}

func storeGroup(a *Answers, cat *rules.Catalog) *huh.Group {
	st := &a.Store
	if st.Kind == "" {
		st.Kind = cat.Defaults.Store
	}
	if st.AuditRow == nil {
		st.AuditRow = new(slices.Contains(cat.Defaults.AuditRowFor, a.Kind))
	}
	opts := make([]huh.Option[string], 0, len(cat.Stores))
	for _, s := range cat.Stores {
		ttl, _, _ := strings.Cut(s.TTLRange, " (") // the range, without its footnote
		label := s.Name + ": " + ttl
		if s.Rejected {
			label = rejectedLabel(cat, s.AntiPattern)
		}
		opts = append(opts, huh.NewOption(fmt.Sprintf("%-9s %s", s.ID, label), s.ID))
	}
	fields := []huh.Field{
		teach("Q3 · Where do keys live?",
			"The store must claim a key in one atomic step (SET NX, INSERT ... ON CONFLICT) and keep it, "+
				"with the response, for the whole TTL."),
		newListed(huh.NewSelect[string]().
			Title(withDefault("Store", st.Kind)).
			Validate(func(id string) error {
				if s, ok := cat.Store(id); ok && s.Rejected {
					return rejected(cat, id, s.AntiPattern)
				}
				return nil
			}),
			&st.Kind, opts),
		explain("The idempotency store is ephemeral; an audit trail is not. Payment and billing operations keep one.", huh.NewConfirm().
			Title("Also write a Postgres audit row?").
			Value(st.AuditRow)),
	}
	if a.Key.Source == spec.SourceWebhook {
		fields = append(fields, explain("Then its payload is persisted first: the sender will not resend an acknowledged event.", huh.NewConfirm().
			Title("Acknowledge the webhook before processing it?").
			Value(&st.AckFirst)))
	} else {
		st.AckFirst = false
	}
	return huh.NewGroup(lead(fields...)...)
}

func ttlGroups(a *Answers, cat *rules.Catalog) []*huh.Group {
	b := boundOf(cat, a.Key)
	if a.TTL == "" {
		a.TTL = b.suggested.String()
	}
	l := &a.Lease
	if l.Duration == "" {
		l.Duration = cat.Defaults.LeaseTTL.String()
	}
	text := "Keys must outlast the longest retry window upstream, and must expire: a store that keeps keys forever grows without bound. " + b.note
	return groupsOf([]huh.Field{
		teach("Q4 · How long are keys kept?", strings.TrimSpace(text)),
		explain("Like 24h, 7d or 30m.", huh.NewInput().
			Title(withDefault("TTL", a.TTL)).
			Value(&a.TTL).
			Validate(keepOr(func() string { return a.TTL }, func(s string) error {
				d, err := rules.CheckTTL(s)
				if err != nil {
					return err
				}
				if d < b.window {
					return fmt.Errorf("a TTL of %s is shorter than the %s retry window of %s: a retry after the key expired would run the operation again; keep keys at least %s (suggested %s)",
						d, b.window, b.name, b.window, b.suggested)
				}
				return nil
			}))),
		explain("The longest the operation runs (a 40m batch, a consumer within its 2m visibility timeout); empty if it fits in the lease.", huh.NewInput().
			Title(withDefault("Longest run while holding the claim", l.LongestRun)).
			Accessor(clearable{&l.LongestRun}).
			Validate(keepOr(func() string { return l.LongestRun }, checkOptional(checkDuration)))),
	}, []huh.Field{
		explain("How long a claim lives unrenewed: a crashed holder blocks retries this long, then the next attempt takes over.", huh.NewInput().
			Title(withDefault("Lease", l.Duration)).
			Value(&l.Duration).
			Validate(keepOr(func() string { return l.Duration }, checkDuration))),
		explain("Needed when the run outlives the lease; empty takes a third of the lease.", huh.NewInput().
			Title(withDefault("Heartbeat (renew the lease every)", l.Heartbeat)).
			Accessor(clearable{&l.Heartbeat}).
			Validate(keepOr(func() string { return l.Heartbeat }, checkOptional(func(s string) error {
				beat, err := rules.ParseDuration(s)
				if err != nil {
					return err
				}
				if lease, err := rules.ParseDuration(l.Duration); err == nil && 2*beat > lease {
					return fmt.Errorf("%s renews a %s lease too late; renew at most every half lease", beat, lease)
				}
				return nil
			})))),
	})
}

// formRetryAfter is the delay the form offers before any is given: the
// one Decide takes for an answers file without collision.retry_after
// (DefaultRetryAfter), for the lease answered so far.
func formRetryAfter(a *Answers, cat *rules.Catalog) string {
	lease, err := rules.ParseDuration(strings.TrimSpace(a.Lease.Duration))
	if err != nil || lease <= 0 {
		lease = cat.Defaults.LeaseTTL
	}
	return DefaultRetryAfter(cat, a.Key.Source, lease).String()
}

func collisionGroups(a *Answers, cat *rules.Catalog) []*huh.Group {
	c := &a.Collision
	src := a.Key.Source
	t := transportOf(src)
	choices := func(row string, value *string) []huh.Option[string] {
		var opts []huh.Option[string]
		for _, ans := range cat.CollisionAnswers(row, src) {
			opts = append(opts, huh.NewOption(ans.ID+": "+ans.Title, ans.ID))
		}
		if to, ok := t.aliases[*value]; ok {
			*value = to
		}
		if len(opts) > 0 && !slices.ContainsFunc(opts, func(o huh.Option[string]) bool { return o.Value == *value }) {
			*value = opts[0].Value
		}
		return opts
	}
	completed := choices(spec.CaseCompleted, &c.Completed)
	inProgress := choices(spec.CaseInProgress, &c.InProgress)
	if c.RetryAfter == "" {
		c.RetryAfter = formRetryAfter(a, cat)
	}
	var fixed []string
	for _, row := range []string{spec.CaseMismatch, spec.CaseExpired} {
		if answers := cat.CollisionAnswers(row, src); len(answers) > 0 {
			if col, ok := cat.Collision(row); ok {
				fixed = append(fixed, col.Case+": "+strings.TrimSpace(answers[0].Response)+".")
			}
		}
	}
	// Each fixed answer is a line of its own, the choice a paragraph
	// after them: run together they read as one answer.
	choose := "Choose what a completed and an in-progress repeat get, " + map[string]string{
		spec.TransportHTTP:     "as an HTTP answer.",
		spec.TransportQueue:    "as a queue consumer acks, nacks or dead-letters.",
		spec.TransportActivity: "as a workflow activity's result or error.",
		spec.TransportSchedule: "as a scheduled job skips or fails.",
	}[t.id]
	fields := []huh.Field{
		teach("Q5 · What does a repeat get?", strings.Join(append(fixed, choose), "\n\n")),
		newListed(huh.NewSelect[string]().
			Title(withDefault("Same key and payload, completed", c.Completed)).
			Validate(func(v string) error {
				if v == "ack" && src == spec.SourceClient {
					return errors.New("a client retrying needs the original response; ack would answer without it, so replay it")
				}
				return nil
			}),
			&c.Completed, completed),
		newListed(huh.NewSelect[string]().
			Title(withDefault("Same key and payload, still in progress", c.InProgress)),
			&c.InProgress, inProgress),
	}
	// A scheduled job that skips a slot another run holds waits for
	// nothing: the delay is asked only where an answer uses it.
	if t.id != spec.TransportSchedule || slices.ContainsFunc(inProgress, func(o huh.Option[string]) bool { return o.Value == "wait" }) {
		fields = append(fields, explain("How long the repeat waits before it comes back.", huh.NewInput().
			Title(withDefault(map[string]string{
				spec.TransportHTTP: "Retry-After", spec.TransportQueue: "Requeue delay",
				spec.TransportActivity: "Engine backoff", spec.TransportSchedule: "Wait for the other run",
			}[t.id], c.RetryAfter)).
			Value(&c.RetryAfter).
			Validate(keepOr(func() string { return c.RetryAfter }, checkDuration))))
	}
	var more []huh.Field
	if t.id == spec.TransportQueue {
		deliveries := deliveriesText{&c.MaxDeliveries}
		more = append(more,
			explain("A message that keeps failing goes to the dead-letter queue with its reason after this many (SQS: the redrive policy's maxReceiveCount).", huh.NewInput().
				Title(withDefault("Dead-letter after how many deliveries?", deliveries.Get())).
				Accessor(deliveries).
				Validate(keepOr(deliveries.Get, checkDeliveries))),
			explain("Its name, e.g. orders-dlq; a mismatched message goes there at once.", huh.NewInput().
				Title(withDefault("Dead-letter queue", c.DeadLetter)).
				Accessor(clearable{&c.DeadLetter}).
				Validate(keepOr(func() string { return c.DeadLetter }, checkOptional(func(s string) error { return rules.CheckKeyPart("dead-letter queue", s) })))),
		)
	} else {
		c.MaxDeliveries, c.DeadLetter = 0, ""
	}
	return groupsOf(fields, more)
}

// deliveriesText binds a delivery count to a text input.
type deliveriesText struct{ p *int }

// Get writes the count, or the default when none is set.
func (d deliveriesText) Get() string {
	if *d.p == 0 {
		return strconv.Itoa(defaultMaxDeliveries)
	}
	return strconv.Itoa(*d.p)
}

// Set reads the count back; the validator reports what does not parse.
func (d deliveriesText) Set(v string) {
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		*d.p = n
	}
}

func checkDeliveries(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > maxDeliveriesLimit {
		return fmt.Errorf("a number of deliveries from 1 to %d", maxDeliveriesLimit)
	}
	return nil
}

// NewStepForm asks Q6 for one downstream side effect: its name (which
// becomes part of its derived key), its target and the mechanism that makes
// it idempotent. taken holds the names of the steps before it, which this
// one may not reuse, since each step needs a key of its own. An empty name
// means "no such step": Interview drops it, which is how a step loaded from
// a spec or a preset is removed.
func NewStepForm(s *StepAnswers, cat *rules.Catalog, taken []string) *huh.Form {
	opts := make([]huh.Option[string], 0, len(cat.Mechanisms))
	width := 0
	for _, m := range cat.Mechanisms {
		width = max(width, len(m.ID))
	}
	for _, m := range cat.Mechanisms {
		opts = append(opts, huh.NewOption(fmt.Sprintf("%-*s %s", width, m.ID, m.Title), m.ID))
	}
	if s.Mechanism == "" && len(cat.Mechanisms) > 0 {
		s.Mechanism = cat.Mechanisms[0].ID
	}
	fields := []huh.Field{
		teach(fmt.Sprintf("Q6 · Downstream step %d", len(taken)+1),
			"The entry key only stops a duplicate request. Each call the handler makes gets its own key, "+
				"derived from the operation's (key:charge), and a mechanism the target honours. "+
				"Leave the name empty to drop the step."),
		explain("Part of the derived key, e.g. charge, email, ledger.", huh.NewInput().
			Title(withDefault("Step name", s.Name)).
			Accessor(clearable{&s.Name}).
			Validate(keepOr(func() string { return s.Name }, checkOptional(func(name string) error {
				// Decide derives the key from the name's slug ("record order"
				// keys as record-order), so names clash when their slugs do.
				slug, err := spec.Slug(name)
				if err != nil {
					return err
				}
				for _, t := range taken {
					if other, _ := spec.Slug(t); other == slug {
						return fmt.Errorf("a step is already named %s; each step needs its own derived key", t)
					}
				}
				return nil
			})))),
		explain("A catalogue target (stripe-api, sendgrid-mail; ctrl+e completes, 'idemkit rules --systems' lists them), whose record says whether it deduplicates, or words for another system.", huh.NewInput().
			Title(withDefault("Target", s.Target)).
			Accessor(clearable{&s.Target}).
			Suggestions(cat.TargetIDs()).
			Validate(keepOr(func() string { return s.Target }, checkTarget(cat)))),
	}
	if len(opts) > 0 {
		fields = append(fields, newListed(huh.NewSelect[string]().
			Title(withDefault("Mechanism", s.Mechanism)),
			&s.Mechanism, opts))
	}
	return huh.NewForm(huh.NewGroup(lead(fields...)...))
}

// NewStepDetailForm asks the rest of Q6 for a step NewStepForm named: its
// key per item of a batch or per business fact, why it needs no key when its
// mechanism is natural (asked of no other step, which Decide would refuse
// a reason from), and the operation it calls.
func NewStepDetailForm(s *StepAnswers) *huh.Form {
	fields := []huh.Field{
		explain("E.g. customer_id: each item gets its own key {key}:STEP:{customer_id}, claim and release. Empty for one call per operation.", huh.NewInput().
			Title(withDefault("Per item of a batch? The item's identity field", s.Item)).
			Accessor(clearable{&s.Item}).
			Validate(keepOr(func() string { return s.Item }, checkOptional(checkPlaceholder)))),
		explain("E.g. order_id, reason: a refund keys on the fact, not on the delivery that caused it.", huh.NewInput().
			Title(withDefault("Or a business fact? Its key fields, comma separated", strings.Join(s.BusinessKey, ", "))).
			Accessor(fieldList{&s.BusinessKey}).
			Validate(keepOr(func() string { return strings.Join(s.BusinessKey, ", ") }, func(v string) error {
				for _, f := range splitList(v) {
					if err := checkPlaceholder(f); err != nil {
						return err
					}
				}
				return nil
			}))),
	}
	if s.Mechanism == spec.MechanismNatural {
		fields = append(fields, explain("Why repeating the call changes nothing.", huh.NewInput().
			Title(withDefault("Why is it naturally idempotent? (PUT, upsert, overwrite, conditional UPDATE)", s.Why)).
			Accessor(clearable{&s.Why})))
	} else {
		s.Why = ""
	}
	fields = append(fields, explain("The spec links it, e.g. charge card.", huh.NewInput().
		Title(withDefault("Operation it calls, when that has a spec of its own", s.Operation)).
		Accessor(clearable{&s.Operation})))
	return huh.NewForm(huh.NewGroup(lead(fields...)...))
}

// NewAddStepForm asks whether to add a downstream step; have is how many
// the operation has so far. With none it opens Q6 and says why the question
// matters. The answer defaults to no, so a loop over it always ends.
func NewAddStepForm(more *bool, have int) *huh.Form {
	if have > 0 {
		return huh.NewForm(huh.NewGroup(
			huh.NewConfirm().
				Title(fmt.Sprintf("Add another downstream step? (%d so far)", have)).
				Value(more),
		))
	}
	return huh.NewForm(huh.NewGroup(lead(
		teach("Q6 · Downstream side effects",
			"This is where most designs fail: the entry key stops a duplicate request, but a charge, an email "+
				"or a row in another system made by the handler needs its own key, derived from the operation's."),
		huh.NewConfirm().
			Title("Does the operation call anything downstream? Add a step?").
			Value(more),
	)...))
}

// lead joins a group's opening teaching note to the field after it (see
// prefaced), so that the note is on screen with the first question.
func lead(fields ...huh.Field) []huh.Field {
	if n, ok := fields[0].(*teaching); ok && len(fields) > 1 {
		return append([]huh.Field{preface(n, fields[1])}, fields[2:]...)
	}
	return fields
}

// explain gives f a description: the terminal shows it under f's title, and
// accessible mode, which shows a field's title alone, prints it before
// asking (see prefaced). A description that follows the answers given above
// it in the same form takes explainBy, whose text is read again each time
// the field is reached.
func explain(text string, f huh.Field) huh.Field {
	return explainBy(func() string { return text }, f)
}

func explainBy(text func() string, f huh.Field) huh.Field {
	p := &prefaced{Field: f, text: text}
	p.describe()
	return p
}

// teaching is a huh.Note whose text reaches both modes intact. The terminal
// view renders a little markdown (an underscore starts italics, so tenant_id
// would lose its underscore) while accessible mode prints the description
// raw: the view gets an escaped copy, accessible mode the text as written.
type teaching struct {
	*huh.Note
	title, text string
}

func teach(title, text string) *teaching {
	esc := strings.NewReplacer(`\`, `\\`, `_`, `\_`, `*`, `\*`, "`", "\\`")
	return &teaching{Note: huh.NewNote().Title(title).Description(esc.Replace(text)), title: title, text: text}
}

// RunAccessible prints the note as written.
func (n *teaching) RunAccessible(w io.Writer, _ io.Reader) error {
	_, err := fmt.Fprintf(w, "%s\n%s\n", n.title, n.text)
	return err
}

// WithAccessible returns the note itself: huh calls it just before
// RunAccessible, and the embedded Note's would return the plain note.
func (n *teaching) WithAccessible(bool) huh.Field { return n }

// withDefault puts the value Enter keeps into the title, where accessible
// mode, which prints no prefilled values, shows it too.
func withDefault(title, value string) string {
	if value == "" {
		return title
	}
	return title + " [" + value + "]"
}

// keepOr checks what the person typed or, when they typed nothing, the value
// the field holds. Accessible mode validates the raw line and then keeps the
// prefilled value for an empty one; the terminal form validates the field's
// content, which current also returns there.
func keepOr(current func() string, check func(string) error) func(string) error {
	return func(s string) error {
		if s = strings.TrimSpace(s); s == "" {
			s = current()
		}
		if s == "-" {
			s = ""
		}
		return check(s)
	}
}

// clearable binds an optional text answer; "-" clears it, which is the only
// way to clear a prefilled value in accessible mode, where Enter keeps it.
type clearable struct{ p *string }

// Get returns the answer.
func (c clearable) Get() string { return *c.p }

// Set stores the answer, "-" as empty.
func (c clearable) Set(v string) {
	if strings.TrimSpace(v) == "-" {
		v = ""
	}
	*c.p = v
}

// fieldList binds a list of field names to one comma-separated input.
type fieldList struct{ p *[]string }

// Get writes the list as the person would type it.
func (f fieldList) Get() string { return strings.Join(*f.p, ", ") }

// Set reads the typed list back.
func (f fieldList) Set(v string) { *f.p = splitList(v) }

// nameList binds a list answer to a multi-select. huh hands back the
// choices in menu order; nameList keeps the order the answers had, adds new
// choices after them, and stores no choice as no list, the way the answers
// file omits it, so that accepting a loaded design changes nothing in it.
type nameList struct{ p *[]string }

// Get returns the chosen names.
func (l nameList) Get() []string { return *l.p }

// Set stores the choices in the answers' order.
func (l nameList) Set(names []string) { *l.p = keepOrder(*l.p, names) }

// keepOrder returns chosen ordered as in old, then the choices old lacks.
func keepOrder(old, chosen []string) []string {
	var out []string
	for _, n := range old {
		if slices.Contains(chosen, n) {
			out = append(out, n)
		}
	}
	for _, n := range chosen {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// volatileChoice binds the catalogue's volatile fields among the excluded
// ones to a multi-select, leaving the other excluded fields alone.
type volatileChoice struct {
	h   *HashAnswers
	cat *rules.Catalog
}

// Get returns the excluded fields the catalogue knows.
func (v volatileChoice) Get() []string {
	var names []string
	for _, n := range v.h.Exclude {
		if isVolatile(v.cat, n) {
			names = append(names, n)
		}
	}
	return names
}

// Set replaces them with the choices, keeping the other excluded fields.
func (v volatileChoice) Set(names []string) {
	kept := slices.Clone(names)
	for _, n := range v.h.Exclude {
		if !isVolatile(v.cat, n) {
			kept = append(kept, n)
		}
	}
	v.h.Exclude = keepOrder(v.h.Exclude, kept)
}

// otherExcluded binds the excluded fields the catalogue does not know, with
// their reasons, to one "name: reason, name" input.
type otherExcluded struct {
	h   *HashAnswers
	cat *rules.Catalog
}

// Get writes the unknown excluded fields as "name: reason, name".
func (o otherExcluded) Get() string {
	var parts []string
	for _, n := range o.h.Exclude {
		if isVolatile(o.cat, n) {
			continue
		}
		if r := o.h.Reasons[n]; r != "" {
			n += ": " + r
		}
		parts = append(parts, n)
	}
	return strings.Join(parts, ", ")
}

// Set reads them back, keeping the catalogue's fields that were chosen.
func (o otherExcluded) Set(v string) {
	names, reasons, err := parseExcluded(v)
	if err != nil {
		// The terminal form sets the value on every key press; the
		// validator reports the error, and the last good value stays.
		return
	}
	kept := volatileChoice{o.h, o.cat}.Get()
	for _, n := range names {
		if !slices.Contains(kept, n) {
			kept = append(kept, n)
		}
	}
	o.h.Exclude = kept
	o.h.Reasons = nil
	for n, r := range reasons {
		if isVolatile(o.cat, n) {
			continue // the catalogue's reason stands
		}
		if o.h.Reasons == nil {
			o.h.Reasons = map[string]string{}
		}
		o.h.Reasons[n] = r
	}
}

// notIncluded checks that no excluded name is also included. Each exclusion
// field checks its own names, so the person can fix the one they are on.
func notIncluded(h *HashAnswers, excluded []string) error {
	for _, n := range excluded {
		if slices.Contains(h.Include, n) {
			return fmt.Errorf("%s is both included and excluded; a field is either part of the operation or noise", n)
		}
	}
	return nil
}

// parseExcluded reads "name: reason, name" into names and their reasons.
func parseExcluded(s string) ([]string, map[string]string, error) {
	var names []string
	reasons := map[string]string{}
	for _, item := range splitList(s) {
		name, reason, _ := strings.Cut(item, ":")
		name, reason = strings.TrimSpace(name), strings.TrimSpace(reason)
		if err := checkFieldName(name); err != nil {
			return nil, nil, err
		}
		names = append(names, name)
		if reason != "" {
			reasons[name] = reason
		}
	}
	return names, reasons, nil
}

// splitList splits a comma-separated answer; "-" alone is the empty list.
func splitList(s string) []string {
	if strings.TrimSpace(s) == "-" {
		return nil
	}
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func checkRequired(what string) func(string) error {
	return func(s string) error {
		if s == "" {
			return fmt.Errorf("%s is required", what)
		}
		return nil
	}
}

func checkOptional(check func(string) error) func(string) error {
	return func(s string) error {
		if s == "" {
			return nil
		}
		return check(s)
	}
}

// checkKeyPart checks a name that becomes part of a key, with the check
// Decide makes, so the form and the answers file refuse the same names.
func checkKeyPart(what string) func(string) error {
	return func(s string) error { return rules.CheckKeyPart(what, s) }
}

// checkFieldName checks a payload field name or path (customer_id, amount.value).
func checkFieldName(s string) error {
	if s == "" {
		return errors.New("a field name is required")
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-./[]", r) {
			return fmt.Errorf("%q is not a field name; separate fields with commas", s)
		}
	}
	return nil
}

func checkFieldNames(s string) error {
	for _, n := range splitList(s) {
		if err := checkFieldName(n); err != nil {
			return err
		}
	}
	return nil
}

func checkScope(s string) error {
	if s == "" {
		return errors.New("name the field that scopes stored keys (tenant_id), or answer unscoped")
	}
	if s == "unscoped" {
		return nil
	}
	return checkFieldName(s)
}

// checkHeader checks an HTTP field name with the check Decide makes.
func checkHeader(s string) error { return rules.CheckHeaderName(s) }

// checkRunTimeout checks a workflow's run timeout, which Decide requires.
func checkRunTimeout(s string) error {
	if s == "" {
		return errors.New("the engine retries the step until the workflow times out, so give the workflow's run timeout, e.g. 7d")
	}
	return checkDuration(s)
}

func checkDuration(s string) error {
	_, err := rules.ParseDuration(s)
	return err
}

// rejected explains why an answer is refused, from its anti-pattern.
func rejected(cat *rules.Catalog, what, anti string) error {
	if ap, ok := cat.AntiPattern(anti); ok {
		return fmt.Errorf("%s is rejected (%s): %s %s", what, ap.Title, ap.Why, ap.Fix)
	}
	return fmt.Errorf("%s is rejected (%s)", what, anti)
}

// rejectedLabel names a rejected choice in a menu by its anti-pattern, so
// the menu teaches the mistake before anyone picks it.
func rejectedLabel(cat *rules.Catalog, anti string) string {
	if ap, ok := cat.AntiPattern(anti); ok {
		return "rejected: " + ap.Title
	}
	return "rejected: " + anti
}

func providerLabel(p rules.Provider) string {
	switch {
	case p.Unbounded:
		return fmt.Sprintf("%s: no time limit on redelivery, suggested TTL %s", p.Name, p.SuggestedTTL)
	case !p.Retries:
		return fmt.Sprintf("%s: no automatic retries, resent for up to %s, suggested TTL %s", p.Name, p.RetryWindow, p.SuggestedTTL)
	}
	return fmt.Sprintf("%s: repeats for up to %s, suggested TTL %s", p.Name, p.RetryWindow, p.SuggestedTTL)
}

// resolveProviders replaces the provider names in k that name one
// catalogue provider with its ID; a name that does not is left for Decide
// to explain.
func resolveProviders(cat *rules.Catalog, k *KeyAnswers) {
	if p, err := cat.FindProvider(k.Provider, k.Source); err == nil {
		k.Provider = p.ID
	}
	for i, name := range k.RetriedBy {
		if p, err := cat.FindProvider(name); err == nil {
			k.RetriedBy[i] = p.ID
		}
	}
}

// checkTarget refuses a step's target that could name two catalogue
// targets; any other words are fine, a target or another system.
func checkTarget(cat *rules.Catalog) func(string) error {
	return func(v string) error {
		var ne *rules.NameError
		if _, err := cat.FindTarget(v); errors.As(err, &ne) && ne.Ambiguous() {
			return err
		}
		return nil
	}
}

// providersOfKind lists the providers a source picks from: webhook senders
// for webhooks, queues for queue consumers, engines for workflow steps,
// schedulers for cron jobs.
func providersOfKind(cat *rules.Catalog, source string) []rules.Provider {
	var out []rules.Provider
	for _, p := range cat.Providers {
		if p.Kind == source {
			out = append(out, p)
		}
	}
	return out
}

// retriers lists the providers that repeat an operation besides the one
// that supplies its key: internal retry policies and people reloading a
// page. A client's request offers those of clients; another source offers
// all of them, for an answer that already names one.
func retriers(cat *rules.Catalog, src string) []rules.Provider {
	var out []rules.Provider
	for _, p := range cat.Providers {
		if p.Kind == rules.KindInternal || p.Kind == rules.KindUI {
			if src != spec.SourceClient || p.Source == "" || p.Source == src {
				out = append(out, p)
			}
		}
	}
	return out
}

func isVolatile(cat *rules.Catalog, name string) bool {
	_, ok := cat.VolatileField(name)
	return ok
}

// hashHelp is Q2's note: a scheduled job runs on parameters, not on a
// request someone sent.
func hashHelp(src string) string {
	if src == spec.SourceCron {
		return "A fingerprint of the job's parameters tells a second run of the same slot from a run with other " +
			"parameters under the same key. Include the parameters that define the run (business date, region, batch); " +
			"exclude what changes between runs of one slot, such as the start time or the host."
	}
	return "A fingerprint of the request tells a retry from a different payload reusing the key. " +
		"Include the fields that define the action (customer, amount, action type); " +
		"exclude noise such as timestamps, request IDs and client IPs."
}

// payloadWord names what a source's repeats carry.
func payloadWord(src string) string {
	if src == spec.SourceCron {
		return "parameters"
	}
	return "payload"
}

// includeHelp says what the included fields are for a source: a scheduled
// job's hash covers its parameters, a delivery's its payload.
func includeHelp(src string) string {
	if src == spec.SourceCron {
		return "The job's parameters (business_date, region), as JSON pointers or dotted paths; empty means all of them."
	}
	return "JSON pointers (/amount, /customer/id) or dotted paths; empty means the whole body minus the excluded fields."
}
