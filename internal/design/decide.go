// Package design turns an engineer's answers to the six questions (who
// supplies the key, the canonical hash, the store, the TTL, the collision
// answers, the downstream steps) into a spec. Decide is pure: the form, the
// answers file and the CLI live elsewhere; the catalogue is passed in.
package design

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // key.time_zone resolves the same on every machine
	"unicode"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/version"
)

// Design is the outcome of Decide: the spec to render, and notes worth
// showing the engineer that do not stop the design (a TTL longer than the
// store keeps keys in practice, a volatile field in the hash).
type Design struct {
	Spec  *spec.Spec
	Notes []string
}

// RejectedError is a design that falls into one of the catalogue's
// anti-patterns. The CLI exits 1 on it: the input was understood and is wrong.
type RejectedError struct {
	AntiPattern string // catalogue ID, e.g. "per-attempt-key"
	Reason      string // what in these answers is wrong, with the numbers
	Fix         string // what to do instead
}

func (e *RejectedError) Error() string {
	msg := fmt.Sprintf("design rejected (%s): %s", e.AntiPattern, e.Reason)
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

// InputError is an answer that cannot be understood: a missing operation, an
// unknown provider, a malformed duration. The CLI exits 2 on it.
type InputError struct {
	Field string // the answers-file path of the field, e.g. "key.provider"
	Err   error
}

func (e *InputError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(field, format string, a ...any) error {
	return &InputError{Field: field, Err: fmt.Errorf(format, a...)}
}

func reject(cat *rules.Catalog, id, reason string) error {
	e := &RejectedError{AntiPattern: id, Reason: reason}
	if ap, ok := cat.AntiPattern(id); ok {
		e.Fix = ap.Fix
	}
	return e
}

// Decide applies the six questions to a and returns the resulting design.
// It fails with *InputError for answers it cannot use and *RejectedError for
// a design that would be one of the anti-patterns.
func Decide(a Answers, cat *rules.Catalog) (Design, error) {
	d := &decider{a: a, cat: cat, s: &spec.Spec{
		Schema:   spec.SchemaVersion,
		Idemkit:  version.String(),
		Patterns: spec.PatternsLink,
		Preset:   a.Preset,
		Kind:     strings.ToLower(strings.TrimSpace(a.Kind)),
	}}
	for _, step := range []func() error{d.operation, d.key, d.hash, d.store, d.ttl, d.collisions, d.downstream} {
		if err := step(); err != nil {
			return Design{}, err
		}
	}
	// The spec must pass the validation every reader applies (idemkit
	// specs, generate handler): an answer that slipped past the checks
	// above is refused here rather than written.
	if problems := d.s.Problems(); len(problems) > 0 {
		p := problems[0]
		return Design{}, &InputError{Field: "spec " + p.Field, Err: fmt.Errorf("%w (the answers decide a spec that does not validate)", p.Err)}
	}
	return Design{Spec: d.s, Notes: d.notes}, nil
}

type decider struct {
	a     Answers
	cat   *rules.Catalog
	s     *spec.Spec
	notes []string
	// provider is the ID of the provider the answers named for the key
	// (the spec records it only for some sources, but its window always
	// bounds the TTL).
	provider string
}

// nameErr completes a catalogue name that finds no entry with the list
// of the ones it could have named; an ambiguous name already lists them.
func nameErr(err error, known string) error {
	var ne *rules.NameError
	if errors.As(err, &ne) && !ne.Ambiguous() {
		return fmt.Errorf("%w; %s", err, known)
	}
	return err
}

func (d *decider) operation() error {
	op := strings.TrimSpace(d.a.Operation)
	if op == "" {
		return inputErr("operation", "required: name the state-changing operation, e.g. \"charge card\"")
	}
	if strings.ContainsAny(op, "\r\n") {
		return inputErr("operation", "must be one line")
	}
	slug, err := spec.Slug(op)
	if err != nil {
		return &InputError{Field: "operation", Err: err}
	}
	d.s.Operation, d.s.Slug = op, slug
	if err := rules.CheckDescription(d.a.Description); err != nil {
		return &InputError{Field: "description", Err: err}
	}
	d.s.Description = strings.TrimSpace(d.a.Description)
	if d.s.Description == "" {
		d.s.Description = op
	}
	return nil
}

// perAttempt matches format placeholders that change on every attempt.
var perAttempt = regexp.MustCompile(`(?i)\{(random|rand|nonce|now|time|timestamp|attempt|attempt_id|request_id)\}`)

// serverMade matches placeholders that are per-attempt unless the client
// made them once per logical action and resends them.
var serverMade = regexp.MustCompile(`(?i)\{(uuid|ulid)\}`)

func (d *decider) key() error {
	k := d.a.Key
	src := strings.ToLower(strings.TrimSpace(k.Source))
	if src == "" {
		return inputErr("key.source", "required: one of %s", strings.Join(d.sourceIDs(), ", "))
	}
	ks, ok := d.cat.KeySource(src)
	if !ok {
		return inputErr("key.source", "unknown source %q; known sources: %s", src, strings.Join(d.sourceIDs(), ", "))
	}
	if ks.Rejected {
		return reject(d.cat, ks.AntiPattern, fmt.Sprintf("a %s key (%s) is different on every attempt, so a retry is never recognised as one", src, ks.Title))
	}
	out := spec.Key{Source: src, Format: ks.Format, Example: ks.Example, Rationale: ks.Description}
	for _, f := range []struct{ name, v string }{
		{"key.header", k.Header}, {"key.workflow", k.Workflow}, {"key.step", k.Step}, {"key.param", k.Param},
		{"key.job", k.Job}, {"key.format", k.Format}, {"key.scope", k.Scope}, {"key.name", k.Name},
		{"key.time_zone", k.TimeZone}, {"key.window_from", k.WindowFrom},
	} {
		if strings.IndexFunc(f.v, unicode.IsControl) >= 0 {
			return inputErr(f.name, "must be one line of text without control characters: it becomes part of every stored key")
		}
		if len(f.v) > maxAnswer {
			return inputErr(f.name, "%d bytes, at most %d", len(f.v), maxAnswer)
		}
	}

	if err := d.keyProvider(src, k.Provider, &out); err != nil {
		return err
	}
	for i, name := range k.RetriedBy {
		p, err := d.cat.FindProvider(name)
		if err != nil {
			return &InputError{Field: fmt.Sprintf("key.retried_by[%d]", i), Err: nameErr(err, "known providers: "+strings.Join(d.cat.ProviderIDs(""), ", "))}
		}
		if !slices.Contains(out.RetriedBy, p.ID) {
			out.RetriedBy = append(out.RetriedBy, p.ID)
		}
	}
	// The rest of the design reads the providers by their IDs: the
	// retry bound, the provider's delivery fields, its collision answers.
	d.a.Key.Provider = d.provider
	d.a.Key.RetriedBy = slices.Clone(out.RetriedBy)
	k = d.a.Key

	if w := strings.TrimSpace(k.Window); w != "" {
		if _, err := rules.CheckTTL(w); err != nil {
			return &InputError{Field: "key.window", Err: err}
		}
	}

	switch src {
	case spec.SourceClient:
		if err := d.clientKey(k, &out); err != nil {
			return err
		}
	case spec.SourceWorkflow:
		for _, f := range []struct{ name, what, v string }{{"key.workflow", "workflow", k.Workflow}, {"key.step", "step", k.Step}} {
			if strings.TrimSpace(f.v) == "" {
				return inputErr(f.name, "required for a workflow step key {workflow_id}:{step}:{param}")
			}
			if err := rules.CheckKeyPart(f.what, strings.TrimSpace(f.v)); err != nil {
				return &InputError{Field: f.name, Err: err}
			}
		}
		param := strings.TrimSpace(k.Param)
		if param == "" {
			param = "param"
		}
		if err := rules.CheckKeyPart("parameter", param); err != nil {
			return &InputError{Field: "key.param", Err: err}
		}
		out.Format = fmt.Sprintf("{workflow_id}:%s:{%s}", strings.TrimSpace(k.Step), param)
		out.Example = fmt.Sprintf("%s-7f3c:%s:%s-42", slugOr(k.Workflow), strings.TrimSpace(k.Step), param)
		out.Field = fmt.Sprintf("workflow ID of %s, step %s, parameter %s", strings.TrimSpace(k.Workflow), strings.TrimSpace(k.Step), param)
		out.In, out.Name = rules.LocationParameter, param
		out.Workflow, out.Step = strings.TrimSpace(k.Workflow), strings.TrimSpace(k.Step)
		if boundOf(d.cat, k).window == 0 {
			return inputErr("key.window", "required for a workflow step key: the engine retries the step until the workflow times out, so give the workflow's run timeout, e.g. 7d")
		}
	case spec.SourceCron:
		if err := d.cronKey(k, &out); err != nil {
			return err
		}
	default:
		if err := d.keyLocation(k, &out); err != nil {
			return err
		}
	}

	if f := strings.TrimSpace(k.Format); f != "" {
		if m := perAttempt.FindString(f); m != "" || src != spec.SourceClient && serverMade.MatchString(f) {
			if m == "" {
				m = serverMade.FindString(f) + " made by this service"
			}
			return reject(d.cat, "per-attempt-key", fmt.Sprintf("key format %q includes %s, which is new on every attempt", f, m))
		}
		if err := rules.CheckKeyFormat(f); errors.Is(err, rules.ErrIdentityKey) {
			return reject(d.cat, "key-per-user", fmt.Sprintf("key format %q names who acts but not the action, so one user's next action is taken for a retry of the last", f))
		} else if err != nil {
			return &InputError{Field: "key.format", Err: err}
		}
		values := formatValues(out.Format, out.Example)
		if src == spec.SourceClient {
			// The client's one value goes by any of these names.
			for _, name := range []string{"idempotency_key", "key", "uuid"} {
				values[name] = ks.Example
			}
		}
		values["provider"], values["queue"] = orWord(out.Provider, "provider"), "orders"
		out.Format, out.Example = f, exampleOf(f, values)
		out.Parts = partsOf(f, out.Parts)
	}

	if src == spec.SourceWebhook && out.ProviderName != "" {
		out.Rationale = senderRationale(out)
	}
	out.Scope = strings.TrimSpace(k.Scope)
	if out.Scope == "" {
		switch {
		case src == spec.SourceClient:
			out.Scope = "tenant_id"
		case out.Provider != "" && (src == spec.SourceWebhook || src == spec.SourceQueue):
			out.Scope = "provider " + out.Provider
			if p, ok := d.cat.Provider(out.Provider); ok && p.Key.Scope != "" {
				// The provider's ID is unique only within something else
				// (GitHub: one delivery GUID for every hook on the event).
				d.notes = append(d.notes, fmt.Sprintf("key.scope: %s's key is unique only per %s; scope by it", p.Name, p.Key.Scope))
				out.Rationale += " " + p.Name + "'s key is unique only per " + p.Key.Scope + ": scope stored keys by it (key.scope)."
			}
		default:
			out.Scope = "unscoped"
		}
	}
	d.s.Key = out
	return nil
}

// partsOf keeps the key parts a format given in the answers uses, when it
// uses no other placeholder than them (and the provider or queue); a
// format of other placeholders says in words where they are read, and the
// parts are dropped rather than contradict it.
func partsOf(format string, parts []spec.KeyPart) []spec.KeyPart {
	var kept []spec.KeyPart
	for _, p := range parts {
		if strings.Contains(format, "{"+p.Part+"}") {
			kept = append(kept, p)
		}
	}
	for _, m := range formatPlaceholder.FindAllStringSubmatch(format, -1) {
		name := m[1]
		if name != "provider" && name != "queue" && !slices.ContainsFunc(kept, func(p spec.KeyPart) bool { return p.Part == name }) {
			return nil
		}
	}
	return kept
}

var formatPlaceholder = regexp.MustCompile(`\{([^{}]*)\}`)

// formatValues reads the value of each placeholder of format out of an
// example key written in it ("{psp_reference}:{event_code}" and
// "8815658961765250:AUTHORISATION"), so an example for another format of
// the same parts can be written from them. A key that does not match the
// format gives no values.
func formatValues(format, example string) map[string]string {
	values := map[string]string{}
	var names []string
	var re strings.Builder
	re.WriteString("^")
	last := 0
	for _, m := range formatPlaceholder.FindAllStringSubmatchIndex(format, -1) {
		re.WriteString(regexp.QuoteMeta(format[last:m[0]]) + "(.+?)")
		names = append(names, format[m[2]:m[3]])
		last = m[1]
	}
	re.WriteString(regexp.QuoteMeta(format[last:]) + "$")
	found := regexp.MustCompile(re.String()).FindStringSubmatch(example)
	for i, name := range names {
		if found != nil {
			values[name] = found[i+1]
		}
	}
	return values
}

// exampleOf writes an example key in format: each placeholder takes its
// value from values, or an illustrative one made from its name
// ({order_id} as order-42).
func exampleOf(format string, values map[string]string) string {
	return formatPlaceholder.ReplaceAllStringFunc(format, func(m string) string {
		name := m[1 : len(m)-1]
		if v, ok := values[name]; ok && v != "" {
			return v
		}
		return strings.ReplaceAll(strings.TrimSuffix(name, "_id"), "_", "-") + "-42"
	})
}

// maxAnswer bounds a one-line answer: it becomes part of a key or a spec
// line, never a document.
const maxAnswer = 255

// clientKey reads where a client sends its key: a header (the default,
// Idempotency-Key) or a body field. A request without one is refused with
// 400, and the stored key is scoped by method and route as well as tenant.
func (d *decider) clientKey(k KeyAnswers, out *spec.Key) error {
	in := strings.ToLower(strings.TrimSpace(k.In))
	name := strings.TrimSpace(k.Name)
	switch in {
	case "", rules.LocationHeader:
		in = rules.LocationHeader
		if h := strings.TrimSpace(k.Header); h != "" {
			if name != "" && !strings.EqualFold(name, h) {
				return inputErr("key.name", "%q and key.header %q name two headers; give one", name, h)
			}
			name = h
		}
		if name == "" {
			name = "Idempotency-Key"
		}
		field := "key.header"
		if k.Header == "" && k.Name != "" {
			field = "key.name"
		}
		if err := rules.CheckHeaderName(name); err != nil {
			return &InputError{Field: field, Err: err}
		}
		out.Field = "header " + name
		out.Rationale += " It travels in the " + name + " header."
		out.Missing = "400 problem+json naming the " + name + " header; the request is not processed and nothing is stored"
	case rules.LocationBody:
		if k.Header != "" {
			return inputErr("key.header", "the key is read from the body (key.in: body); drop key.header")
		}
		if err := rules.CheckJSONPointer(name); err != nil {
			return &InputError{Field: "key.name", Err: err}
		}
		out.Field = "body " + pointerPath(name)
		out.Missing = "400 problem+json naming the " + name + " field; the request is not processed and nothing is stored"
		// The key field stays in the fingerprint: every request compared
		// under one key carries the same value there, so leaving it out
		// would change no answer.
		out.Rationale += " It travels in the body field " + name + ", a string of printable ASCII up to 255 bytes, and stays in the fingerprint, where it cannot cause a mismatch: every request compared under the key carries the same value in it."
	default:
		return inputErr("key.in", "%q: a client sends its key in a header or a body field; one of header, body", in)
	}
	out.In, out.Name = in, name
	return nil
}

// keyLocation reads where a webhook or queue key is: the provider's
// record of it in the catalogue, or the answers' own key.in and key.name
// (a broker record that carries an event ID header, a provider the
// catalogue does not know the location of).
func (d *decider) keyLocation(k KeyAnswers, out *spec.Key) error {
	in, name := strings.ToLower(strings.TrimSpace(k.In)), strings.TrimSpace(k.Name)
	if h := strings.TrimSpace(k.Header); h != "" && in == "" && name == "" {
		// key.header names a header for any source.
		in, name = rules.LocationHeader, h
	}
	if in == "" && name == "" {
		// A team's provider may give its key_field in words only: the spec
		// keeps those, and key.in and key.name stay empty.
		return nil
	}
	if err := rules.CheckLocation(rules.Location{Kind: in, Name: name}); err != nil {
		return &InputError{Field: "key.in", Err: err}
	}
	out.In, out.Name = in, name
	out.Parts = []spec.KeyPart{{Part: placeholderOf(name), In: in, Name: name}}
	switch in {
	case rules.LocationBody:
		out.Field = "body " + pointerPath(name)
	default:
		out.Field = in + " " + name
	}
	if strings.TrimSpace(k.Format) == "" {
		prefix, example := "{provider}:", out.Provider+":"
		if out.Source == spec.SourceQueue {
			prefix, example = "{queue}:", "orders:"
		}
		out.Format = prefix + "{" + placeholderOf(name) + "}"
		out.Example = example + "evt-7f3c2a91"
	}
	return nil
}

// cronKey makes a scheduled job's key: the job and its slot, floored in
// the job's time zone, or its business date there for a daily job.
func (d *decider) cronKey(k KeyAnswers, out *spec.Key) error {
	job := strings.TrimSpace(k.Job)
	if job == "" {
		job = d.s.Slug
	}
	if err := rules.CheckKeyPart("job", job); err != nil {
		return &InputError{Field: "key.job", Err: err}
	}
	sched := strings.TrimSpace(k.Schedule)
	if sched == "" {
		return inputErr("key.schedule", "required for a cron key: the slot length the scheduled time is floored to, e.g. 1h or 1d")
	}
	slot, err := rules.ParseDuration(sched)
	if err != nil {
		return &InputError{Field: "key.schedule", Err: err}
	}
	zone, loc, field, err := rules.CronZone(k.TimeZone, slot.Std(), k.BusinessDate)
	if err != nil {
		return &InputError{Field: field, Err: err}
	}
	out.Schedule, out.TimeZone, out.Job = slot, zone, job
	out.In, out.Name = "schedule", "scheduled_time"
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, loc)
	if k.BusinessDate {
		out.BusinessDate = true
		out.Format = job + ":{scheduled_time as business date in " + zone + "}"
		out.Example = job + ":" + at.Format(time.DateOnly)
		out.Field = "the job's business date: the date, in " + zone + ", of the slot it was scheduled for (not the day it happens to run)"
		out.Rationale = "The business date the run was scheduled for, on the calendar of " + zone + ", is the same for every scheduler and every retry of that day's run, even one that starts late after midnight or on a day daylight saving time makes 23 or 25 hours long, so the day's work is done once."
		return nil
	}
	floored := floorIn(at, slot.Std())
	out.Format = job + ":{scheduled_time floored to " + slot.String() + "}"
	out.Field = "the job's scheduled time, floored to its " + slot.String() + " slot"
	if zone != "UTC" {
		out.Format = job + ":{scheduled_time floored to " + slot.String() + " in " + zone + "}"
		out.Field += " in " + zone
	}
	out.Example = job + ":" + floored.Format(time.RFC3339)
	if zone != "UTC" {
		out.Rationale += " The slot is counted on the wall clock of " + zone + " (a daily slot starts at local midnight), and the key carries its start with the zone's offset."
	}
	return nil
}

// floorIn floors t to slot in t's zone by the rule generated cron handlers
// follow (internal/templates/handler/cron.go.tmpl), so that the spec's
// example is the key the handler makes: a slot of whole days is floored on
// the calendar, starting at local midnight even on a day daylight saving
// time makes 23 or 25 hours long; a shorter slot is counted on the wall
// clock from local midnight, and in the hour the clocks go back, which comes
// twice, t's slot is the one of t's own pass.
func floorIn(t time.Time, slot time.Duration) time.Time {
	y, m, d := t.Date()
	if slot%(24*time.Hour) == 0 {
		day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Truncate(slot)
		return time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, t.Location())
	}
	h, mi, sec := t.Clock()
	wall := (time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second).Truncate(slot)
	start := time.Date(y, m, d, 0, 0, int(wall/time.Second), 0, t.Location())
	_, was := start.Zone()
	_, is := t.Zone()
	if other := start.Add(time.Duration(was-is) * time.Second); other.Hour() == start.Hour() && other.Minute() == start.Minute() &&
		!other.After(t) && (other.After(start) || start.After(t)) {
		start = other
	}
	return start
}

// pointerPath writes a JSON pointer as the dotted path the spec's prose
// and the handler generator read (/data/object/id as data.object.id).
func pointerPath(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, part := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
	}
	return strings.Join(parts, ".")
}

// placeholderOf turns a location's name into a key placeholder:
// X-Event-Id as x_event_id, /data/id as data_id.
func placeholderOf(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Trim(name, "/")) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return orWord(b.String(), "id")
}

// senderRationale says why a webhook key is stable in the chosen
// sender's own terms: its name, the values the key is made of and where
// each is read, from the catalogue's structured key (or the answers'
// location, which replaced it).
func senderRationale(k spec.Key) string {
	var parts []string
	for _, p := range k.Parts {
		where := p.In + " " + p.Name
		switch p.In {
		case rules.LocationHeader:
			where = "the header " + p.Name
		case rules.LocationBody:
			where = "the body field " + p.Name
		}
		parts = append(parts, p.Part+" ("+where+")")
	}
	what := "its key (" + k.Field + ")"
	switch len(parts) {
	case 0:
	case 1:
		what = "its " + parts[0]
	default:
		what = "its " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	if k.Batch {
		what += " with each event of a batch,"
	}
	return k.ProviderName + " sends " + what + " unchanged on every redelivery of an event, so the key is the same on each. Read it only after the signature check, and prefix the provider so IDs from two senders cannot collide."
}

// keyProvider resolves the provider whose retries bound the TTL. Webhook and
// queue keys need one of their kind; client keys default to user-driven
// retries; workflow and cron keys have none unless one is named.
func (d *decider) keyProvider(src, name string, out *spec.Key) error {
	id := strings.TrimSpace(name)
	kinds := map[string][]string{
		"webhook": {"webhook"}, "queue": {"queue"},
		"client": {"ui", "internal"}, "workflow": {rules.KindWorkflow, "internal", "queue"}, "cron": {rules.KindCron, "internal"},
	}[src]
	if id == "" {
		switch src {
		case "webhook", "queue":
			return inputErr("key.provider", "required for a %s key; known %s providers: %s", src, src, strings.Join(d.cat.ProviderIDs(src), ", "))
		case "client":
			id = "ui"
		default:
			return nil
		}
	}
	p, err := d.cat.FindProvider(id, kinds...)
	if err != nil {
		var known []string
		for _, kind := range kinds {
			known = append(known, d.cat.ProviderIDs(kind)...)
		}
		return &InputError{Field: "key.provider", Err: nameErr(err, fmt.Sprintf("known providers for a %s key: %s", src, strings.Join(known, ", ")))}
	}
	d.provider = p.ID
	if !slices.Contains(kinds, p.Kind) {
		return inputErr("key.provider", "%s is a %s provider and cannot supply a %s key", p.ID, p.Kind, src)
	}
	if src == spec.SourceWorkflow && p.Kind == rules.KindWorkflow || src == spec.SourceCron && p.Kind == rules.KindCron {
		// The engine or scheduler that runs the step or job: its name and
		// its retry window go into the spec; the key stays the step's or
		// the slot's.
		out.Provider, out.ProviderName = p.ID, p.Name
	}
	if src == "webhook" || src == "queue" {
		out.Provider, out.ProviderName = p.ID, p.Name
		out.Field = p.KeyField
		if p.KeyExample != "" {
			out.Example = p.KeyExample
		}
		if len(p.Key.From) > 0 {
			out.In, out.Name = p.Key.From[0].Kind, p.Key.From[0].Name
		}
		out.Parts = nil
		for _, l := range p.Key.From {
			out.Parts = append(out.Parts, spec.KeyPart{Part: l.Part, In: l.Kind, Name: l.Name})
		}
		out.Batch, out.Items = p.Key.Batch, p.Key.Items
		out.Ack = p.Ack.Body
		if rules.PayloadOf(p) != rules.PayloadJSON {
			out.Payload = p.Payload
		}
		if p.Key.Format != "" {
			prefix := "{provider}:"
			if src == "queue" {
				prefix = "{queue}:"
			}
			values := formatValues(p.Key.Format, p.KeyExample)
			values["provider"], values["queue"] = p.ID, "orders"
			out.Format = prefix + p.Key.Format
			out.Example = exampleOf(out.Format, values)
		}
	}
	return nil
}

func (d *decider) sourceIDs() []string {
	var ids []string
	for _, ks := range d.cat.KeySources {
		if !ks.Rejected {
			ids = append(ids, ks.ID)
		}
	}
	return ids
}

func (d *decider) hash() error {
	h := d.a.Hash
	if h.DetectMismatch != nil && !*h.DetectMismatch {
		return reject(d.cat, "no-mismatch-detection", "hash.detect_mismatch is false, so a reused key with a different payload would silently return the first payload's result")
	}
	out := spec.Hash{Algorithm: "sha256-jcs", Include: []string{}, Exclude: []spec.Field{}}
	seen := map[string]string{}
	for i, raw := range h.Include {
		f, err := FieldPath(raw)
		if err != nil {
			return &InputError{Field: fmt.Sprintf("hash.include[%d]", i), Err: err}
		}
		if seen[f] != "" {
			continue
		}
		seen[f] = "include"
		out.Include = append(out.Include, f)
		if _, volatile := d.cat.VolatileField(f); volatile {
			d.notes = append(d.notes, fmt.Sprintf("hash.include has %s, which is usually noise; a retry that changes it will be answered as a mismatch", f))
		}
	}
	for i, raw := range h.Exclude {
		f, err := FieldPath(raw)
		if err != nil {
			return &InputError{Field: fmt.Sprintf("hash.exclude[%d]", i), Err: err}
		}
		switch seen[f] {
		case "include":
			return inputErr(fmt.Sprintf("hash.exclude[%d]", i), "%s is both included in and excluded from the hash; keep it in one list", f)
		case "exclude":
			continue
		}
		seen[f] = "exclude"
		reason := strings.TrimSpace(h.Reasons[raw])
		if reason == "" {
			reason = strings.TrimSpace(h.Reasons[f])
		}
		if reason == "" {
			if vf, ok := d.cat.VolatileField(f); ok {
				reason = vf.Reason
			} else {
				return inputErr("hash.reasons."+f, "say why %s is noise for this operation (the catalogue does not know it)", f)
			}
		}
		if len(reason) > maxAnswer*4 || strings.IndexFunc(reason, unicode.IsControl) >= 0 {
			return inputErr("hash.reasons."+f, "one line of at most %d bytes", maxAnswer*4)
		}
		out.Exclude = append(out.Exclude, spec.Field{Name: f, Reason: reason})
	}
	d.deliveryFields(&out, seen)
	d.s.Hash = out
	return nil
}

// deliveryFields leaves out of the hash the body fields the key's provider
// changes between deliveries of one event (Stripe's pending_webhooks,
// HubSpot's attemptNumber): kept in, every redelivery would be answered as
// a mismatch and never acknowledged. A field the answers list themselves
// keeps their choice.
func (d *decider) deliveryFields(h *spec.Hash, seen map[string]string) {
	p, ok := d.cat.Provider(d.s.Key.Provider)
	if !ok || d.s.Key.Source != spec.SourceWebhook && d.s.Key.Source != spec.SourceQueue {
		return
	}
	for _, f := range p.Exclude {
		if f.Kind != rules.LocationBody {
			continue
		}
		name, err := FieldPath(f.Name)
		if err != nil || seen[name] != "" {
			continue
		}
		seen[name] = "exclude"
		h.Exclude = append(h.Exclude, spec.Field{Name: name, Reason: p.Name + ": " + f.Reason})
	}
}

func (d *decider) store() error {
	kind := strings.ToLower(strings.TrimSpace(d.a.Store.Kind))
	if kind == "" {
		kind = d.cat.Defaults.Store
	}
	st, ok := d.cat.Store(kind)
	if !ok {
		var ids []string
		for _, s := range d.cat.Stores {
			if !s.Rejected {
				ids = append(ids, s.ID)
			}
		}
		return inputErr("store.kind", "unknown store %q; known stores: %s", kind, strings.Join(ids, ", "))
	}
	if st.Rejected {
		return reject(d.cat, st.AntiPattern, fmt.Sprintf("%s keeps keys for %s at best and evicts them under memory pressure, so retries slip through", st.Name, st.TTLMax.Human()))
	}
	audit := slices.Contains(d.cat.Defaults.AuditRowFor, d.s.Kind)
	if d.a.Store.AuditRow != nil {
		audit = *d.a.Store.AuditRow
	}
	d.s.Store = spec.Store{Kind: st.ID, Name: st.Name, Primitive: st.Primitive, AuditRow: audit, Rationale: st.When}
	if d.a.Store.AckFirst && d.s.Key.Source != spec.SourceWebhook {
		return inputErr("store.ack_first", "only a webhook is acknowledged before it is processed; a %s key answers when the work is done", d.s.Key.Source)
	}
	d.s.Store.AckFirst = d.a.Store.AckFirst
	d.s.Store.Implies = d.implications(st.ID)
	return nil
}

// implications says what the store choice commits the code to, for this
// source: where the claim commits relative to the business write, and
// when the delivery may be acknowledged.
func (d *decider) implications(store string) []string {
	var out []string
	switch store {
	case "postgres":
		out = append(out, "the claim row is inserted in the same transaction as the business write, so both commit or neither does: a crash between them leaves no claimed key without its effect")
	case "redis", "dynamodb":
		out = append(out, "the claim is not in the business write's transaction: complete the key only after the business write commits, and let each downstream step's own key absorb a crash between the two")
	case "workflow":
		out = append(out, "the engine's history records the activity's result; the side effects the activity makes still need keys of their own")
	}
	switch d.s.Key.Source {
	case spec.SourceWebhook:
		if d.a.Store.AckFirst {
			out = append(out, "the webhook is acknowledged before it is processed, so its payload is persisted (an inbox row under the event's key) before the 2xx: the sender will not resend an acknowledged event, and a crash after the 2xx would lose it")
		} else {
			out = append(out, "the webhook is answered 2xx only after the work commits, within the sender's timeout; a slower handler acknowledges first and persists the payload before it (store.ack_first)")
		}
	case spec.SourceQueue:
		out = append(out, "the message is acked (or the consumer offset committed) only after the database commit; a crash between the two redelivers it, and the key absorbs the redelivery")
	case spec.SourceCron:
		out = append(out, "the slot is completed in the same commit as the job's last write where the store allows it, so a finished run is never repeated")
	}
	return out
}

func (d *decider) ttl() error {
	b := boundOf(d.cat, d.a.Key)
	ttl := b.suggested
	if s := strings.TrimSpace(d.a.TTL); s != "" {
		v, err := rules.CheckTTL(s)
		if errors.Is(err, rules.ErrForever) {
			return reject(d.cat, "keys-forever", fmt.Sprintf("ttl %q: the store would grow without bound and slow down; audit history belongs in an audit table, not the key store", s))
		}
		if long, perr := rules.ParseDuration(s); perr == nil && long > rules.MaxTTL {
			return reject(d.cat, "keys-forever", fmt.Sprintf("ttl %s is over %s, keeping keys forever in all but name; a retry that late is guarded by a business key (a unique constraint on the fact), not the key store", long, rules.MaxTTL))
		}
		if err != nil {
			return &InputError{Field: "ttl", Err: err}
		}
		ttl = v
	}
	if ttl < b.window {
		return reject(d.cat, "ttl-below-retry-window", fmt.Sprintf("ttl %s is shorter than the %s retry window of %s, so a late retry would run the operation again", ttl, b.window, b.name))
	}

	window, just, ref := b.window, "", ""
	switch b.source {
	case "answers":
		from := strings.TrimSpace(d.a.Key.WindowFrom)
		if from == "" {
			from = "the window given for this " + d.s.Key.Source + " key (key.window)"
			if d.s.Key.Source == spec.SourceWorkflow {
				from = "the workflow's run timeout (key.window), until which the engine retries the step"
			}
		}
		just = fmt.Sprintf("covers the %s retry window of %s", window, from)
		ref = "the answers: " + from
	case "schedule":
		just = fmt.Sprintf("covers two %s schedule slots, so a duplicate or catch-up run of the same slot is recognised", window)
		ref = "the schedule's slot length (key.schedule)"
	case "default":
		// Nothing bounds the retries: the TTL itself is the window claimed.
		window = ttl
		just = "no upstream retry window is known for this source; the TTL is the catalogue default and bounds how late a retry is recognised"
		ref = "the catalogue's default TTL; give key.window when you know how long retries last"
	default:
		p := b.from
		just = p.Bound
		if w := strings.TrimSpace(p.Window.Is); w != "" {
			just = fmt.Sprintf("%s: %s is %s. %s", p.Name, window, w, p.Bound)
		} else if p.ID != d.s.Key.Provider {
			// The body names only the key's own provider; say whose window this is.
			just = p.Name + ": " + just
		}
		ref = orWord(p.Window.URL, p.Reference)
		if p.Unbounded {
			d.notes = append(d.notes, fmt.Sprintf("%s redelivers without a time bound; %s is the catalogue's policy: set key.window to your queue's message TTL", p.Name, window))
		} else if p.Window.Configurable && p.Window.Kind != rules.WindowPolicy {
			d.notes = append(d.notes, fmt.Sprintf("the %s window of %s is a setting of yours (the catalogue has its default or maximum); give key.window and key.window_from when yours differs", window, p.Name))
		}
	}
	if st, ok := d.cat.Store(d.s.Store.Kind); ok && st.TTLMax > 0 && ttl > st.TTLMax {
		d.notes = append(d.notes, fmt.Sprintf("ttl %s is longer than %s keeps keys in practice (%s); consider postgres", ttl, st.Name, st.TTLMax))
	}
	d.s.TTL = spec.TTL{Duration: ttl, RetryWindow: window, WindowSource: b.source, Justification: just, WindowReference: ref}
	d.unverifiedProviders(b.from)
	return d.lease()
}

// unverifiedProviders says, where the spec relies on a provider, what
// of its catalogue entry could not be checked against its documentation:
// in the TTL's justification for the provider whose window bounds the
// TTL, and in the key's rationale for the key's own provider (a sender,
// a broker, an engine) when that is another.
func (d *decider) unverifiedProviders(window *rules.Provider) {
	if window != nil {
		if c := unverified(window.Name, window.Unverified); c != "" {
			d.s.TTL.Justification += " " + c
			d.notes = append(d.notes, fmt.Sprintf("ttl: the TTL relies on facts about %s that were not checked against its documentation; the justification says which", window.ID))
		}
	}
	p, ok := d.cat.Provider(d.provider)
	if !ok || window != nil && p.ID == window.ID {
		return
	}
	if c := unverified(p.Name, p.Unverified); c != "" {
		d.s.Key.Rationale = strings.TrimSpace(d.s.Key.Rationale + " " + c)
		d.notes = append(d.notes, fmt.Sprintf("key.provider: the key relies on facts about %s that were not checked against its documentation; the key's rationale says which", p.ID))
	}
}

// unverified is the caveat a spec carries for a catalogue entry named
// name whose Unverified field is text: what could not be checked against
// its documentation. Empty when everything was.
func unverified(name, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return ""
	}
	if !strings.HasSuffix(text, ".") {
		text += "."
	}
	return "Not checked against the documentation of " + name + ": " + text
}

// lease ties the claim's lease to the operation's longest run: a run that
// fits in the lease needs nothing more; a longer one renews the lease every
// heartbeat, so a crashed holder still frees the key within one lease.
func (d *decider) lease() error {
	la := d.a.Lease
	parse := func(field, v string, def rules.Duration) (rules.Duration, error) {
		if v = strings.TrimSpace(v); v == "" {
			return def, nil
		}
		dur, err := rules.ParseDuration(v)
		if err != nil {
			return 0, &InputError{Field: field, Err: err}
		}
		return dur, nil
	}
	lease, err := parse("lease.duration", la.Duration, d.cat.Defaults.LeaseTTL)
	if err != nil {
		return err
	}
	run, err := parse("lease.longest_run", la.LongestRun, 0)
	if err != nil {
		return err
	}
	if run == 0 {
		// The spec says no longest run was given rather than claim one.
		d.notes = append(d.notes, fmt.Sprintf("lease.longest_run is not given: the design assumes the operation finishes within its %s lease", lease))
	}
	def := rules.Duration(0)
	if run > lease {
		def = lease / 3
	}
	beat, err := parse("lease.heartbeat", la.Heartbeat, def)
	if err != nil {
		return err
	}
	switch {
	case lease > d.s.TTL.Duration:
		return inputErr("lease.duration", "%s outlives the %s TTL: the key would expire while still claimed; shorten the lease and renew it with a heartbeat", lease, d.s.TTL.Duration)
	case run > d.s.TTL.Duration:
		return inputErr("lease.longest_run", "a %s run outlasts the %s TTL: raise the TTL above the longest run", run, d.s.TTL.Duration)
	case beat > 0 && 2*beat > lease:
		return inputErr("lease.heartbeat", "%s renews a %s lease too late: one late heartbeat loses the claim; renew at most every half lease (%s), e.g. every third (%s)", beat, lease, lease/2, lease/3)
	}
	d.s.TTL.Lease, d.s.TTL.LongestRun, d.s.TTL.Heartbeat = lease, run, beat
	d.s.TTL.LeaseLost = leaseLost(transportOf(d.s.Key.Source).id)
	return nil
}

// leaseLost says what a holder that outlives its lease must do, in the
// transport's terms.
func leaseLost(transport string) string {
	success := map[string]string{
		"http":     "answer no 2xx",
		"queue":    "not ack the message",
		"activity": "not complete the activity",
		"schedule": "exit non-zero",
	}[transport]
	return "A holder that stops renewing (a long GC pause, a partition, a crash) loses the claim when its lease lapses: the next attempt takes it over with a new fencing token, and the old holder's heartbeat, complete and release fail with a lease-lost error. On that error the old holder stops at once, rolls back what it has not committed and must " + success + "; the side effects it already made are deduplicated by their own keys when the new holder repeats them."
}

func (d *decider) collisions() error {
	c := d.a.Collision
	src := d.s.Key.Source
	t := transportOf(src)
	p, _ := d.cat.Provider(d.s.Key.Provider)
	retryAfter := DefaultRetryAfter(d.cat, src, d.s.TTL.Lease)
	if s := strings.TrimSpace(c.RetryAfter); s != "" {
		v, err := rules.ParseDuration(s)
		if err != nil {
			return &InputError{Field: "collision.retry_after", Err: err}
		}
		retryAfter = v
	}
	if strings.EqualFold(strings.TrimSpace(c.Completed), "ack") && src == spec.SourceClient {
		return reject(d.cat, "no-response-stored", "collision.completed is ack for a client key, so a client retrying after a lost response gets an empty 200 instead of its result")
	}
	answers := map[string]*rules.CollisionAnswer{}
	for _, q := range []struct{ row, field, answer string }{
		{spec.CaseCompleted, "collision.completed", c.Completed},
		{spec.CaseInProgress, "collision.in_progress", c.InProgress},
		{spec.CaseMismatch, "collision.mismatch", ""},
		{spec.CaseExpired, "collision.expired", ""},
	} {
		a, note, err := t.answer(d.cat, q.field, q.row, q.answer)
		if err != nil {
			return err
		}
		if note != "" {
			d.notes = append(d.notes, note)
		}
		answers[q.row] = a
	}
	maxDeliveries := c.MaxDeliveries
	switch {
	case maxDeliveries < 0 || maxDeliveries > maxDeliveriesLimit:
		return inputErr("collision.max_deliveries", "%d is out of range; a redrive policy allows 1 to %d deliveries", maxDeliveries, maxDeliveriesLimit)
	case maxDeliveries != 0 && t.id != "queue":
		return inputErr("collision.max_deliveries", "only a queue consumer dead-letters after N deliveries; a %s key has no delivery count", src)
	case maxDeliveries == 0:
		maxDeliveries = defaultMaxDeliveries
	}
	deadLetter := strings.TrimSpace(c.DeadLetter)
	if deadLetter != "" && t.id != "queue" {
		return inputErr("collision.dead_letter", "only a queue consumer has a dead-letter queue; a %s key answers in its own terms", src)
	}
	if err := checkKeyPart("dead-letter queue")(deadLetter); deadLetter != "" && err != nil {
		return &InputError{Field: "collision.dead_letter", Err: err}
	}
	d.s.Failure = t.failure(d.s, p, maxDeliveries, deadLetter)

	var rows []spec.Collision
	for _, id := range spec.CollisionCases() {
		col, ok := d.cat.Collision(id)
		if !ok {
			return fmt.Errorf("catalogue has no %q collision row", id)
		}
		row := t.row(id, answers[id], d.s, p, retryAfter)
		row.When = col.Case
		if w := strings.TrimSpace(col.BySource[src]); w != "" {
			row.When = w
		}
		if id == spec.CaseInProgress && t.delays(row.Action, p) {
			row.RetryAfter = retryAfter
		}
		if id == spec.CaseMismatch || id == spec.CaseExpired {
			row.Policy = ""
		}
		rows = append(rows, row)
	}
	d.s.Collisions = rows
	return nil
}

// DefaultRetryAfter is how long a repeat that finds the key in progress
// waits by default: the catalogue's Retry-After for an HTTP caller, and
// for a queue a requeue delay of the whole lease, so that the message
// comes back once the first attempt has finished or its lease lapsed (the
// runtime hands it back for what remains of the holder's lease, at most
// this).
func DefaultRetryAfter(cat *rules.Catalog, src string, lease rules.Duration) rules.Duration {
	if transportOf(src).id == spec.TransportQueue {
		return lease
	}
	return cat.Defaults.RetryAfter
}

// A queue dead-letters a message after this many deliveries unless the
// answers say otherwise: SQS's console suggests it, and it rides out a
// short outage without keeping a poison message for long.
const (
	defaultMaxDeliveries = 5
	maxDeliveriesLimit   = 1000
)

func (d *decider) downstream() error {
	if err := rules.CheckSteps(len(d.a.Downstream)); err != nil {
		return &InputError{Field: "downstream", Err: err}
	}
	steps := []spec.Step{}
	seen := map[string]bool{}
	for i, sa := range d.a.Downstream {
		field := fmt.Sprintf("downstream[%d]", i)
		name := strings.TrimSpace(sa.Name)
		if name == "" {
			return inputErr(field+".name", "required: name the side effect, e.g. charge or email")
		}
		if strings.ContainsAny(name, "\r\n") {
			return inputErr(field+".name", "must be one line")
		}
		slug, err := spec.Slug(name)
		if err != nil {
			return &InputError{Field: field + ".name", Err: err}
		}
		if seen[slug] {
			return inputErr(field+".name", "%q appears twice; each step needs its own derived key", name)
		}
		seen[slug] = true
		mech := orWord(strings.ToLower(strings.TrimSpace(sa.Mechanism)), "provider-key")
		m, ok := d.cat.Mechanism(mech)
		if !ok {
			var ids []string
			for _, m := range d.cat.Mechanisms {
				ids = append(ids, m.ID)
			}
			return inputErr(field+".mechanism", "unknown mechanism %q; known mechanisms: %s", mech, strings.Join(ids, ", "))
		}
		st := spec.Step{
			Name:      name,
			Target:    orWord(strings.TrimSpace(sa.Target), name),
			Mechanism: m.ID,
			Key:       "{key}:" + slug,
			How:       m.How,
		}
		if err := d.stepKey(field, slug, sa, &st); err != nil {
			return err
		}
		if err := d.stepTarget(field, sa, &st); err != nil {
			return err
		}
		steps = append(steps, st)
	}
	d.s.Downstream = steps
	return nil
}

// stepKey makes a step's key: derived from the operation's key, with the
// item's identity for a per-item step of a batch or scheduled run, or the
// business fact's own fields where the side effect is a business fact.
func (d *decider) stepKey(field, slug string, sa StepAnswers, st *spec.Step) error {
	item := strings.TrimSpace(sa.Item)
	if item != "" {
		if err := checkPlaceholder(item); err != nil {
			return &InputError{Field: field + ".item", Err: err}
		}
		st.Item = item
		st.Key = "{key}:" + slug + ":{" + item + "}"
	}
	if len(sa.BusinessKey) > 0 {
		if item != "" {
			return inputErr(field+".business_key", "give an item or a business key, not both: a business key already names the fact, whichever run or item causes it")
		}
		parts := []string{slug}
		for i, f := range sa.BusinessKey {
			f = strings.TrimSpace(f)
			if err := checkPlaceholder(f); err != nil {
				return &InputError{Field: fmt.Sprintf("%s.business_key[%d]", field, i), Err: err}
			}
			if slices.Contains(st.BusinessKey, f) {
				return inputErr(fmt.Sprintf("%s.business_key[%d]", field, i), "%s is listed twice", f)
			}
			st.BusinessKey = append(st.BusinessKey, f)
			parts = append(parts, "{"+f+"}")
		}
		if !slices.ContainsFunc(st.BusinessKey, func(f string) bool { return !identityField(f) }) {
			return reject(d.cat, "key-per-user", fmt.Sprintf("the business key of %s is made of %s alone, who acts rather than what happened; add the fact's own fields (order_id, reason)", st.Name, strings.Join(st.BusinessKey, ", ")))
		}
		st.Key = strings.Join(parts, ":")
	}
	if op := strings.TrimSpace(sa.Operation); op != "" {
		slug, err := spec.Slug(op)
		if err != nil {
			return &InputError{Field: field + ".operation", Err: err}
		}
		st.Spec = spec.FileName(slug)
	}
	return nil
}

// stepTarget checks the mechanism against what the target does with a
// repeated call, from the catalogue's record of it: no mechanism may rely
// on deduplication the target does not have, and a target that forgets
// its keys sooner than the operation's retries last needs a guard row.
func (d *decider) stepTarget(field string, sa StepAnswers, st *spec.Step) error {
	why := strings.TrimSpace(sa.Why)
	if len(why) > maxAnswer || strings.IndexFunc(why, unicode.IsControl) >= 0 {
		return inputErr(field+".why", "one line of at most %d bytes", maxAnswer)
	}
	if st.Mechanism == spec.MechanismNatural {
		if why == "" {
			why = "it sets a state rather than adding to it, so a repeat changes nothing (say which: a PUT of the whole resource, an upsert on a business key, a deterministic overwrite or a conditional UPDATE)"
			d.notes = append(d.notes, fmt.Sprintf("%s.why: say why %s needs no key (a PUT, an upsert, an overwrite or a conditional UPDATE)", field, st.Name))
		}
		st.Why = why
	} else if why != "" {
		return inputErr(field+".why", "only a naturally idempotent step (mechanism natural) says why it needs no key")
	}
	t, err := d.target(field, sa.Target)
	if t == nil {
		return err
	}
	st.Target = t.ID
	if err := d.cat.CheckMechanism(st.Mechanism, t.ID); err != nil {
		return &InputError{Field: field + ".mechanism", Err: err}
	}
	switch t.Dedup {
	case rules.DedupKey:
		st.Dedup = fmt.Sprintf("%s deduplicates on a key sent in the %s %s", t.Name, t.Via.Kind, t.Via.Name)
		if t.Remembers > 0 {
			st.Dedup += fmt.Sprintf(" for %s", t.Remembers)
		} else if t.RemembersNote != "" {
			st.Dedup += " (" + strings.TrimSpace(t.RemembersNote) + ")"
		}
	case rules.DedupNatural:
		st.Dedup = t.Name + " is idempotent by itself on " + t.Via.Name
	default:
		st.Dedup = t.Name + " does not deduplicate: every call it receives is performed"
	}
	st.Dedup += ". " + strings.TrimSpace(t.Note)
	late := t.Remembers > 0 && t.Remembers < d.s.TTL.RetryWindow
	if st.Mechanism == spec.MechanismProviderKey && late {
		return inputErr(field+".mechanism", "%s remembers a key for %s, but %s: a late retry would call it again as new; use guard-row (keep the ID its first call returns, and look it up before calling again), still sending the key", t.Name, t.Remembers, d.retriesLast())
	}
	if late {
		// Only here, with both numbers: the target's memory is shorter
		// than this operation's retries.
		advice := "add a guard row: persist the external ID the first call returns, and look it up before calling again"
		if st.Mechanism == spec.MechanismGuardRow {
			advice = "the guard row, not the key, stops a late retry"
		}
		st.Dedup += fmt.Sprintf(" %s forgets keys after %s, but %s: %s.", t.Name, t.Remembers, d.retriesLast(), advice)
	}
	if c := unverified(t.Name, t.Unverified); c != "" {
		st.Dedup += " " + c
		d.notes = append(d.notes, fmt.Sprintf("%s.target: the step relies on facts about %s that were not checked against its documentation; its dedup says which", field, t.ID))
	}
	if t.Reference != "" {
		st.Dedup += " Source: " + t.Reference
	}
	if t.Dedup != rules.DedupKey {
		return nil
	}
	st.Repeat = t.Repeat
	switch st.Mechanism {
	case spec.MechanismProviderKey:
		st.How = fmt.Sprintf("Pass {parent}:{step} (here %s) as the idempotency key of %s, in its %s %s; %s", st.Key, t.Name, t.Via.Kind, t.Via.Name, repeatAdvice(t.Repeat))
	case spec.MechanismMessageID:
		st.How = fmt.Sprintf("Send {parent}:{step} (here %s) as the deduplication ID of %s, in its %s %s; %s", st.Key, t.Name, t.Via.Kind, t.Via.Name, repeatAdvice(t.Repeat))
	}
	return nil
}

// repeatAdvice says what the handler gets back when it repeats a call
// with a key the target still keeps, and what to do with it, as the
// catalogue records the target's answer; nothing is promised where the
// catalogue does not know it.
func repeatAdvice(repeat string) string {
	switch repeat {
	case rules.RepeatFirstResult:
		return "a repeat gets the first result back for as long as the target keeps the key."
	case rules.RepeatCurrentState:
		return "a repeat gets back what the first call made, in its current state rather than as first answered, for as long as the target keeps the key."
	case rules.RepeatConflict:
		return "a repeat is answered 409 Conflict for as long as the target keeps the key. That conflict means the first call was done: the handler treats it as already done, not as a failure, and looks the result up (the resource the key made) to carry on."
	case rules.RepeatAccepted:
		return "a repeat is accepted as a success and dropped for as long as the target keeps the key, so nothing is performed twice."
	}
	return "the target performs one call per key for as long as it keeps the key, but what it answers a repeat is not recorded here: read its documentation before relying on the answer, and treat one that says the key was used as already done, not as a failure."
}

// retriesLast says how long retries of this operation last and whose they
// are, from the TTL's retry window.
func (d *decider) retriesLast() string {
	w := d.s.TTL.RetryWindow
	if p, ok := d.cat.Provider(d.s.TTL.WindowSource); ok {
		return fmt.Sprintf("%s can repeat this operation for %s", p.Name, w)
	}
	return fmt.Sprintf("retries of this operation last %s", w)
}

// target finds the catalogue's record of a step's target: by its ID
// (sendgrid-mail), or by the system's name as people write it ("SendGrid",
// "Checkout.com"; see rules.FindTarget). Words that name no target are
// another system, which the spec keeps as written: nil and no error, with
// a note when they are close to a target's ID. Words that could name two
// targets are refused with both.
func (d *decider) target(field, text string) (*rules.Target, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	t, err := d.cat.FindTarget(text)
	var ne *rules.NameError
	switch {
	case err == nil:
		return t, nil
	case errors.As(err, &ne) && ne.Ambiguous():
		return nil, &InputError{Field: field + ".target", Err: fmt.Errorf("%w, or name a system the catalogue does not know in words of its own", err)}
	case errors.As(err, &ne) && len(ne.Near) > 0:
		d.notes = append(d.notes, fmt.Sprintf("%s.target: %q is no catalogue target, so the spec cannot say what it does with a repeated call; did you mean %s?", field, strings.TrimSpace(text), strings.Join(ne.Near, " or ")))
	}
	return nil, nil
}

// checkPlaceholder checks a payload field name that becomes a key
// placeholder: letters, digits and _ . - only, so that {name} reads back.
func checkPlaceholder(name string) error {
	if name == "" {
		return errors.New("empty field name")
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_.-", r) {
			return fmt.Errorf("%q is not a field name (letters, digits, _ . -): it becomes {%s} in the key", name, name)
		}
	}
	return nil
}

// identityField reports a field that names who acts (a user, a tenant, an
// account) rather than what happens.
func identityField(name string) bool {
	return rules.ClassifyPart(name) == rules.PartIdentity
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func slugOr(s string) string {
	if slug, err := spec.Slug(s); err == nil {
		return slug
	}
	return "workflow"
}
