package rules

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// validID is the shape of every ID: lowercase, so that a spec, a flag and a
// finding name an entry the same way.
var validID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// requiredCollisions are the four rows every spec's collision table has.
var requiredCollisions = []string{"completed", "in_progress", "mismatch", "expired"}

// Validate checks the catalogue as a whole: IDs present, lowercase and
// unique; required fields given; references resolving (a provider's source,
// a store's anti-pattern, a preset's provider, store and mechanisms); and
// the arithmetic of TTLs (a provider's suggested_ttl at least its
// retry_window, the default TTL inside the default store's range). It
// returns every problem, joined, each a *FileError pointing at the line
// last written among the fields involved, so that after a merge the blame
// lands on the override that caused it.
func (c *Catalog) Validate() error {
	v := &validator{c: c}
	v.antiPatterns()
	v.keySources()
	v.providers()
	v.defaultProviders()
	v.volatileFields()
	v.stores()
	v.collisions()
	v.mechanisms()
	v.targets()
	v.presets()
	v.checks()
	v.defaults()
	slices.SortStableFunc(v.errs, func(a, b *FileError) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	errs := make([]error, len(v.errs))
	for i, e := range v.errs {
		errs[i] = e
	}
	return errors.Join(errs...)
}

type validator struct {
	c    *Catalog
	errs []*FileError
	// ids per section, for references
	sourceIDs, providerIDs, storeIDs, mechanismIDs, antiPatternIDs, targetIDs map[string]int
}

// ref names a recorded position (an entry "providers[3]" or a field
// "providers[3].bound") and what to add to its path in the message.
type ref struct{ key, sub string }

// at is where field of entry i of section is: the field itself if it was
// written, else its entry.
func at(section string, i int, field string) []ref {
	entry := fmt.Sprintf("%s[%d]", section, i)
	refs := []ref{{entry + "." + field, ""}}
	// and every enclosing field of a nested one: key.from[0] for
	// key.from[0].kind, then key, then the entry
	for j := len(field) - 1; j > 0; j-- {
		if field[j] == '.' || field[j] == '[' {
			refs = append(refs, ref{entry + "." + field[:j], field[j:]})
		}
	}
	return append(refs, ref{entry, "." + field})
}

// fail records err at whichever of refs was written last.
func (v *validator) fail(err error, refs ...ref) {
	fe := &FileError{Field: refs[0].key + refs[0].sub, Err: err}
	best := -1
	for _, r := range refs {
		if p, ok := v.c.pos[r.key]; ok && p.seq > best {
			best = p.seq
			fe.File, fe.Line, fe.Field = p.file, p.line, p.path+r.sub
		}
	}
	v.errs = append(v.errs, fe)
}

// where names an entry for a message: file:line when it came from a file.
func (v *validator) where(entry string) string {
	if p, ok := v.c.pos[entry]; ok {
		return fmt.Sprintf("%s:%d", p.file, p.line)
	}
	return entry
}

// ttlRange writes a store's practical TTL range for a message.
func ttlRange(s Store) string {
	if s.TTLMax == 0 {
		return "at least " + s.TTLMin.String()
	}
	return s.TTLMin.String() + " to " + s.TTLMax.String()
}

// ids checks the IDs of one section and returns them with their index.
func (v *validator) ids(section, noun string, n int, id func(int) string) map[string]int {
	out := map[string]int{}
	key := "id"
	if section == "volatile_fields" {
		key = "name"
	}
	for i := range n {
		s := id(i)
		switch first, dup := out[s]; {
		case strings.TrimSpace(s) == "":
			v.fail(fmt.Errorf("%w (every %s needs one)", ErrMissingField, noun), at(section, i, key)...)
		case section != "volatile_fields" && !validID.MatchString(s):
			v.fail(fmt.Errorf("%s %q must be lowercase letters, digits, '-' or '_'", key, s), at(section, i, key)...)
		case dup:
			v.fail(fmt.Errorf("%w %q, first given at %s", ErrDuplicateID, s, v.where(fmt.Sprintf("%s[%d]", section, first))), at(section, i, key)...)
		default:
			out[s] = i
		}
	}
	return out
}

// require reports each empty field of entry i; fields alternates names and
// values.
func (v *validator) require(section, noun string, i int, fields ...string) {
	for j := 0; j+1 < len(fields); j += 2 {
		if strings.TrimSpace(fields[j+1]) == "" {
			v.fail(fmt.Errorf("%w (every %s needs a %s)", ErrMissingField, noun, fields[j]), at(section, i, fields[j])...)
		}
	}
}

// ref checks that id names an entry of known, the section called what.
func (v *validator) ref(id, what string, known map[string]int, refs []ref) bool {
	if _, ok := known[id]; ok {
		return true
	}
	article := "a"
	if strings.ContainsRune("aeiou", rune(what[0])) {
		article = "an"
	}
	v.fail(fmt.Errorf("%w: %q is not %s %s (known: %s)", ErrUnknownRef, id, article, what, strings.Join(slices.Sorted(maps.Keys(known)), ", ")), refs...)
	return false
}

func (v *validator) antiPatterns() {
	a := v.c.AntiPatterns
	v.antiPatternIDs = v.ids("anti_patterns", "anti-pattern", len(a), func(i int) string { return a[i].ID })
	for i, p := range a {
		v.require("anti_patterns", "anti-pattern", i, "title", p.Title, "why", p.Why, "fix", p.Fix)
	}
}

func (v *validator) keySources() {
	ks := v.c.KeySources
	v.sourceIDs = v.ids("key_sources", "key source", len(ks), func(i int) string { return ks[i].ID })
	for i, k := range ks {
		v.require("key_sources", "key source", i, "title", k.Title, "format", k.Format, "example", k.Example, "description", k.Description)
		v.rejection("key_sources", "key source", i, k.Rejected, k.AntiPattern)
	}
}

// defaultProviders checks the providers a key source defaults to; it runs
// after providers, whose IDs it needs.
func (v *validator) defaultProviders() {
	for i, k := range v.c.KeySources {
		for j, id := range k.DefaultProviders {
			v.ref(id, "provider", v.providerIDs, at("key_sources", i, fmt.Sprintf("default_providers[%d]", j)))
		}
	}
}

// rejection checks that a rejected entry says why, with a known anti-pattern.
func (v *validator) rejection(section, noun string, i int, rejected bool, antiPattern string) {
	switch {
	case antiPattern != "":
		v.ref(antiPattern, "anti-pattern", v.antiPatternIDs, at(section, i, "anti_pattern"))
	case rejected:
		v.fail(fmt.Errorf("%w: a rejected %s names the anti-pattern it falls into", ErrMissingField, noun),
			append(at(section, i, "anti_pattern"), at(section, i, "rejected")...)...)
	}
}

func (v *validator) providers() {
	ps := v.c.Providers
	v.providerIDs = v.ids("providers", "provider", len(ps), func(i int) string { return ps[i].ID })
	for i, p := range ps {
		v.require("providers", "provider", i, "name", p.Name, "key_field", p.KeyField, "key_example", p.KeyExample, "bound", p.Bound)
		switch {
		case slices.Contains(ProviderKinds(), p.Kind):
		case p.Kind == "":
			v.fail(fmt.Errorf("%w (every provider needs a kind: %s)", ErrMissingField, strings.Join(ProviderKinds(), ", ")), at("providers", i, "kind")...)
		default:
			v.fail(fmt.Errorf("kind %q is not one of %s", p.Kind, strings.Join(ProviderKinds(), ", ")), at("providers", i, "kind")...)
		}
		if p.Source == "" {
			v.fail(fmt.Errorf("%w (every provider needs the key source its keys come from)", ErrMissingField), at("providers", i, "source")...)
		} else if v.ref(p.Source, "key source", v.sourceIDs, at("providers", i, "source")) {
			if k := v.c.KeySources[v.sourceIDs[p.Source]]; k.Rejected {
				v.fail(fmt.Errorf("provider %s takes its keys from %q, a rejected key source", p.ID, p.Source),
					append(at("providers", i, "source"), at("key_sources", v.sourceIDs[p.Source], "rejected")...)...)
			}
		}
		window := at("providers", i, "retry_window")
		switch {
		case p.Unbounded && p.RetryWindow != 0:
			v.fail(fmt.Errorf("retry_window %s contradicts unbounded: true; say in bound what ends a redelivery", p.RetryWindow),
				append(window, at("providers", i, "unbounded")...)...)
		case !p.Unbounded && p.RetryWindow <= 0:
			v.fail(fmt.Errorf("%w: the longest time over which the same delivery can arrive again, e.g. 72h or 3d (or unbounded: true if nothing bounds it)", ErrMissingField),
				append(window, at("providers", i, "unbounded")...)...)
		}
		ttl := at("providers", i, "suggested_ttl")
		switch {
		case p.SuggestedTTL <= 0:
			v.fail(fmt.Errorf("%w: how long to keep keys for this provider, at least its retry_window", ErrMissingField), ttl...)
		case p.SuggestedTTL < p.RetryWindow:
			v.fail(fmt.Errorf("suggested_ttl %s is shorter than retry_window %s: a redelivery after the key expired is processed twice (ttl-below-retry-window)",
				p.SuggestedTTL, p.RetryWindow), append(ttl, window...)...)
		}
		v.url("reference", p.Reference, "the documentation the window came from", at("providers", i, "reference"))
		v.providerKey(i, p)
		v.window(i, p)
		v.payload(i, p)
		v.consumer(i, p)
		for j, f := range p.Exclude {
			field := fmt.Sprintf("exclude[%d]", j)
			if err := CheckLocation(Location{Kind: f.Kind, Name: f.Name}); err != nil {
				v.fail(err, at("providers", i, field)...)
			}
			if strings.TrimSpace(f.Reason) == "" {
				v.fail(fmt.Errorf("%w: why %s changes between deliveries", ErrMissingField, f.Name), at("providers", i, field+".reason")...)
			}
		}
	}
}

// url reports a value that is not an http(s) URL; what says what it links.
func (v *validator) url(name, s, what string, refs []ref) {
	if s == "" {
		return
	}
	if u, err := url.Parse(s); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		v.fail(fmt.Errorf("%s %q is not an http(s) URL; link %s", name, s, what), refs...)
	}
}

// providerKey checks a provider's structured key: each part read from a
// valid location, and the format naming exactly the parts. A provider
// without one (a team's, written before the field existed) has only its
// key_field prose.
func (v *validator) providerKey(i int, p Provider) {
	k := p.Key
	if len(k.From) == 0 {
		if k.Format != "" || k.Scope != "" {
			v.fail(fmt.Errorf("%w: where the key is read, e.g. from: [{part: event_id, kind: header, name: X-Event-Id}]", ErrMissingField), at("providers", i, "key.from")...)
		}
		return
	}
	var parts []string
	for j, l := range k.From {
		field := fmt.Sprintf("key.from[%d]", j)
		if err := CheckLocation(l); err != nil {
			v.fail(err, at("providers", i, field)...)
		}
		switch {
		case !validID.MatchString(l.Part):
			v.fail(fmt.Errorf("part %q must be a lowercase name such as event_id: it is the placeholder in key.format", l.Part), at("providers", i, field+".part")...)
		case slices.Contains(parts, l.Part):
			v.fail(fmt.Errorf("%w: part %q given twice", ErrDuplicateID, l.Part), at("providers", i, field+".part")...)
		}
		parts = append(parts, l.Part)
	}
	if k.Items != "" {
		if !k.Batch {
			v.fail(errors.New("items points at a batch's events: set batch: true, or remove items"), at("providers", i, "key.items")...)
		} else if err := CheckJSONPointer(k.Items); err != nil {
			v.fail(err, at("providers", i, "key.items")...)
		}
	}
	got := Placeholders(k.Format)
	if k.Format == "" || !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(parts))) {
		v.fail(fmt.Errorf("format %q must use each part of key.from once, in braces: %s", k.Format, "{"+strings.Join(parts, "}:{")+"}"),
			at("providers", i, "key.format")...)
	}
}

// payload checks a provider's payload format and acknowledgement: the
// format is one idemkit knows, and an acknowledgement is one line sent by
// a webhook sender, with the page that asks for it.
func (v *validator) payload(i int, p Provider) {
	switch {
	case p.Payload != "" && !slices.Contains(PayloadFormats(), p.Payload):
		v.fail(fmt.Errorf("payload %q is not one of %s", p.Payload, strings.Join(PayloadFormats(), ", ")), at("providers", i, "payload")...)
	case PayloadOf(&p) != PayloadJSON && p.PayloadURL == "":
		v.fail(fmt.Errorf("%w: the page that says deliveries are %s", ErrMissingField, p.Payload), append(at("providers", i, "payload_url"), at("providers", i, "payload")...)...)
	}
	v.url("payload_url", p.PayloadURL, "the page that states the payload format", at("providers", i, "payload_url"))
	if p.Ack == (Ack{}) {
		return
	}
	if p.Kind != KindWebhook {
		v.fail(fmt.Errorf("ack: only a webhook sender expects an acknowledgement body; a %s provider has none", p.Kind), at("providers", i, "ack")...)
	}
	if b := p.Ack.Body; b == "" || len(b) > 255 || strings.IndexFunc(b, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
		v.fail(fmt.Errorf("ack.body %q: want one line of at most 255 printable ASCII characters, the exact body the sender expects", b), at("providers", i, "ack.body")...)
	}
	if p.Ack.URL == "" {
		v.fail(fmt.Errorf("%w: the page that asks for this acknowledgement", ErrMissingField), at("providers", i, "ack.url")...)
	}
	v.url("url", p.Ack.URL, "the page that asks for this acknowledgement", at("providers", i, "ack.url"))
}

// consumer checks a broker's consumer vocabulary and a webhook sender's
// busy answer: each belongs to its kind of provider, says every answer,
// and names the page it comes from.
func (v *validator) consumer(i int, p Provider) {
	if p.Consumer != (Consumer{}) {
		if p.Kind != KindQueue {
			v.fail(fmt.Errorf("consumer: only a queue's consumer acks, hands back or dead-letters; a %s provider has none", p.Kind), at("providers", i, "consumer")...)
		}
		c := p.Consumer
		for _, f := range []struct{ name, v string }{{"ack", c.Ack}, {"later", c.Later}, {"dead_letter", c.DeadLetter}, {"retry", c.Retry}, {"url", c.URL}} {
			if strings.TrimSpace(f.v) == "" {
				v.fail(fmt.Errorf("%w: how this broker's consumer answers (%s)", ErrMissingField, f.name), at("providers", i, "consumer."+f.name)...)
			}
		}
		v.url("url", c.URL, "the page of the broker's consumer features", at("providers", i, "consumer.url"))
	}
	if p.Busy != (Busy{}) {
		if p.Kind != KindWebhook {
			v.fail(fmt.Errorf("busy: only a webhook sender is answered with a status; a %s provider has none", p.Kind), at("providers", i, "busy")...)
		}
		if p.Busy.Status < 400 || p.Busy.Status > 599 || strings.TrimSpace(p.Busy.Says) == "" || p.Busy.URL == "" {
			v.fail(fmt.Errorf("%w: busy needs a 4xx or 5xx status, what the sender does with it, and the page that says so", ErrMissingField), at("providers", i, "busy")...)
		}
		v.url("url", p.Busy.URL, "the page that says which answers the sender retries", at("providers", i, "busy.url"))
	}
}

// window checks what a provider's retry window is said to be.
func (v *validator) window(i int, p Provider) {
	w := p.Window
	if w.Kind == "" && w.Is == "" && w.URL == "" {
		return
	}
	if !slices.Contains(WindowKinds(), w.Kind) {
		v.fail(fmt.Errorf("kind %q is not one of %s", w.Kind, strings.Join(WindowKinds(), ", ")), at("providers", i, "window.kind")...)
	}
	if strings.TrimSpace(w.Is) == "" {
		v.fail(fmt.Errorf("%w: what the number is, in one line (e.g. the end of the sender's automatic retries)", ErrMissingField), at("providers", i, "window.is")...)
	}
	v.url("url", w.URL, "the page that states the window", at("providers", i, "window.url"))
	if w.Kind == WindowRetention && !p.Unbounded && !w.Configurable {
		v.fail(errors.New("a retention window is the queue's own setting: mark it configurable: true"), at("providers", i, "window.configurable")...)
	}
}

// targets checks the downstream targets: what they do with a repeat, and
// that the mechanism each suggests does not claim deduplication the target
// does not have.
func (v *validator) targets() {
	ts := v.c.Targets
	v.targetIDs = v.ids("targets", "target", len(ts), func(i int) string { return ts[i].ID })
	for i, t := range ts {
		v.require("targets", "target", i, "name", t.Name, "note", t.Note, "reference", t.Reference)
		v.url("reference", t.Reference, "the documentation of its idempotency", at("targets", i, "reference"))
		hasVia := t.Via != (Location{})
		switch t.Dedup {
		case DedupKey:
			if !hasVia {
				v.fail(fmt.Errorf("%w: where the key is sent, e.g. via: {kind: header, name: Idempotency-Key}", ErrMissingField), at("targets", i, "via")...)
			}
			if t.Remembers == 0 && strings.TrimSpace(t.RemembersNote) == "" {
				v.fail(fmt.Errorf("%w: how long the target keeps a key (remembers), or remembers_note saying its documentation gives no number", ErrMissingField), at("targets", i, "remembers")...)
			}
		case DedupNatural:
			if !hasVia {
				v.fail(fmt.Errorf("%w: the value the target is idempotent on, e.g. via: {kind: body, name: /id}", ErrMissingField), at("targets", i, "via")...)
			}
		case DedupNone:
			if hasVia || t.Remembers != 0 {
				v.fail(errors.New("a target that does not deduplicate takes no key and remembers nothing; remove via and remembers (say in note what a custom ID does, if anything)"),
					slices.Concat(at("targets", i, "via"), at("targets", i, "remembers"))...)
			}
		case "":
			v.fail(fmt.Errorf("%w: what the target does with a repeated call: %s, %s or %s", ErrMissingField, DedupKey, DedupNatural, DedupNone), at("targets", i, "dedup")...)
		default:
			v.fail(fmt.Errorf("dedup %q is not one of %s, %s, %s", t.Dedup, DedupKey, DedupNatural, DedupNone), at("targets", i, "dedup")...)
		}
		switch {
		case t.Repeat == "":
		case t.Dedup != DedupKey:
			v.fail(fmt.Errorf("repeat says what a target that deduplicates on a key answers a repeat; %s's dedup is %s: remove it", t.ID, t.Dedup), at("targets", i, "repeat")...)
		case !slices.Contains(RepeatAnswers(), t.Repeat):
			v.fail(fmt.Errorf("repeat %q is not one of %s (or leave it out when the documentation does not say)", t.Repeat, strings.Join(RepeatAnswers(), ", ")), at("targets", i, "repeat")...)
		}
		if hasVia {
			if err := CheckLocation(t.Via); err != nil {
				v.fail(err, at("targets", i, "via")...)
			}
			if t.Via.Part != "" {
				v.fail(errors.New("via names where the key goes; it has no part"), at("targets", i, "via.part")...)
			}
		}
		if t.Mechanism == "" {
			v.fail(fmt.Errorf("%w: the mechanism that fits this target", ErrMissingField), at("targets", i, "mechanism")...)
		} else if v.ref(t.Mechanism, "mechanism", v.mechanismIDs, at("targets", i, "mechanism")) {
			m := v.c.Mechanisms[v.mechanismIDs[t.Mechanism]]
			if m.TargetDedup != "" && m.TargetDedup != t.Dedup {
				v.fail(fmt.Errorf("mechanism %s needs a target whose dedup is %s, and %s's is %s: it would claim deduplication the target does not have", m.ID, m.TargetDedup, t.ID, t.Dedup),
					slices.Concat(at("targets", i, "mechanism"), at("targets", i, "dedup"))...)
			}
		}
	}
}

func (v *validator) volatileFields() {
	fs := v.c.VolatileFields
	v.ids("volatile_fields", "volatile field", len(fs), func(i int) string { return fs[i].Name })
	for i, f := range fs {
		v.require("volatile_fields", "volatile field", i, "reason", f.Reason)
	}
}

func (v *validator) stores() {
	ss := v.c.Stores
	v.storeIDs = v.ids("stores", "store", len(ss), func(i int) string { return ss[i].ID })
	for i, s := range ss {
		v.require("stores", "store", i, "name", s.Name, "ttl_range", s.TTLRange, "primitive", s.Primitive, "when", s.When)
		if s.TTLMin < 0 || s.TTLMax < 0 || (s.TTLMax != 0 && s.TTLMax < s.TTLMin) {
			v.fail(fmt.Errorf("ttl_max %s is below ttl_min %s (leave ttl_max out for no upper bound)", s.TTLMax, s.TTLMin),
				append(at("stores", i, "ttl_max"), at("stores", i, "ttl_min")...)...)
		}
		v.rejection("stores", "store", i, s.Rejected, s.AntiPattern)
	}
}

func (v *validator) collisions() {
	cs := v.c.Collisions
	known := v.ids("collisions", "collision", len(cs), func(i int) string { return cs[i].ID })
	for i, c := range cs {
		v.require("collisions", "collision", i, "case", c.Case, "meaning", c.Meaning, "response", c.Response)
		if c.Status != 0 && (c.Status < 100 || c.Status > 599) {
			v.fail(fmt.Errorf("status %d is not an HTTP status (0 when the row is not HTTP-specific)", c.Status), at("collisions", i, "status")...)
		}
		v.collisionAnswers(i, c)
	}
	for _, id := range requiredCollisions {
		if _, ok := known[id]; !ok {
			v.fail(fmt.Errorf("%w: the collision table has no %q row; every spec renders all four (%s)",
				ErrMissingField, id, strings.Join(requiredCollisions, ", ")), ref{"collisions", ""})
		}
	}
}

// collisionAnswers checks a row's answers: known sources, and an answer for
// every key source that is not rejected, so a design never falls back to
// an HTTP answer for a queue.
func (v *validator) collisionAnswers(i int, c Collision) {
	if len(c.Answers) == 0 {
		return // a team's row without answers keeps the row's response
	}
	seen := map[string]bool{}
	covered := map[string]bool{}
	for j, a := range c.Answers {
		field := fmt.Sprintf("answers[%d]", j)
		switch {
		case !validID.MatchString(a.ID):
			v.fail(fmt.Errorf("id %q must be lowercase letters, digits, '-' or '_'", a.ID), at("collisions", i, field+".id")...)
		case seen[a.ID]:
			v.fail(fmt.Errorf("%w %q in the %s row", ErrDuplicateID, a.ID, c.ID), at("collisions", i, field+".id")...)
		}
		seen[a.ID] = true
		if strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Response) == "" {
			v.fail(fmt.Errorf("%w: every answer needs a title and a response", ErrMissingField), at("collisions", i, field)...)
		}
		if a.Status != 0 && (a.Status < 100 || a.Status > 599) {
			v.fail(fmt.Errorf("status %d is not an HTTP status", a.Status), at("collisions", i, field+".status")...)
		}
		if len(a.Sources) == 0 {
			v.fail(fmt.Errorf("%w: the key sources this answer fits", ErrMissingField), at("collisions", i, field+".sources")...)
		}
		for k, src := range a.Sources {
			if v.ref(src, "key source", v.sourceIDs, at("collisions", i, fmt.Sprintf("%s.sources[%d]", field, k))) {
				covered[src] = true
			}
		}
	}
	for _, k := range v.c.KeySources {
		if !k.Rejected && !covered[k.ID] {
			v.fail(fmt.Errorf("%w: no answer for a %s key in the %s row; a design would fall back to another transport's terms", ErrMissingField, k.ID, c.ID),
				at("collisions", i, "answers")...)
		}
	}
}

func (v *validator) mechanisms() {
	ms := v.c.Mechanisms
	v.mechanismIDs = v.ids("mechanisms", "mechanism", len(ms), func(i int) string { return ms[i].ID })
	for i, m := range ms {
		v.require("mechanisms", "mechanism", i, "title", m.Title, "how", m.How)
		switch m.TargetDedup {
		case "", DedupKey, DedupNatural, DedupNone:
		default:
			v.fail(fmt.Errorf("target_dedup %q is not one of %s, %s, %s (or empty for any target)", m.TargetDedup, DedupKey, DedupNatural, DedupNone),
				at("mechanisms", i, "target_dedup")...)
		}
	}
}

// presets checks the references inside each preset's answers, which design
// decodes later: a preset naming an unknown provider would fail there, far
// from the line that caused it.
func (v *validator) presets() {
	ps := v.c.Presets
	v.ids("presets", "preset", len(ps), func(i int) string { return ps[i].ID })
	for i, p := range ps {
		v.require("presets", "preset", i, "title", p.Title, "description", p.Description)
		entry := fmt.Sprintf("presets[%d]", i)
		if len(p.Answers) == 0 {
			v.fail(fmt.Errorf("%w (every preset needs answers, in the shape of an --answers file)", ErrMissingField), at("presets", i, "answers")...)
			continue
		}
		here := func(sub string) []ref {
			return []ref{{entry + ".answers", sub}, {entry, ".answers" + sub}}
		}
		key := v.mapping(p.Answers, "key", here)
		if src, ok := key["source"]; !ok {
			v.fail(fmt.Errorf("%w (a preset says who supplies the key)", ErrMissingField), here(".key.source")...)
		} else if v.ref(fmt.Sprint(src), "key source", v.sourceIDs, here(".key.source")) {
			if k := v.c.KeySources[v.sourceIDs[fmt.Sprint(src)]]; k.Rejected {
				v.fail(fmt.Errorf("%q is a rejected key source (%s); a preset is a pattern to follow", k.ID, k.AntiPattern),
					slices.Concat(here(".key.source"), at("key_sources", v.sourceIDs[k.ID], "rejected"))...)
			}
		}
		if provider, ok := key["provider"]; ok {
			v.ref(fmt.Sprint(provider), "provider", v.providerIDs, here(".key.provider"))
		}
		if rb, ok := key["retried_by"]; ok {
			list, isList := rb.([]any)
			if !isList {
				v.fail(errors.New("expected a list of provider IDs"), here(".key.retried_by")...)
			}
			for j, id := range list {
				v.ref(fmt.Sprint(id), "provider", v.providerIDs, here(fmt.Sprintf(".key.retried_by[%d]", j)))
			}
		}
		if kind, ok := v.mapping(p.Answers, "store", here)["kind"]; ok {
			v.ref(fmt.Sprint(kind), "store", v.storeIDs, here(".store.kind"))
		}
		if ttl, ok := p.Answers["ttl"]; ok {
			if _, err := ParseDuration(fmt.Sprint(ttl)); err != nil {
				v.fail(err, here(".ttl")...)
			}
		}
		steps, _ := p.Answers["downstream"].([]any)
		if _, ok := p.Answers["downstream"]; ok && steps == nil {
			v.fail(errors.New("expected a list of steps"), here(".downstream")...)
		}
		for j, s := range steps {
			step, _ := s.(map[string]any)
			if m, ok := step["mechanism"]; ok {
				v.ref(fmt.Sprint(m), "mechanism", v.mechanismIDs, here(fmt.Sprintf(".downstream[%d].mechanism", j)))
			} else {
				v.fail(fmt.Errorf("%w (each downstream step says how it is made idempotent)", ErrMissingField), here(fmt.Sprintf(".downstream[%d].mechanism", j))...)
			}
		}
	}
}

// checks validates the audit checks' documentation: idemkit rules, the
// README and each analyzer's help text are built from it, so an entry
// missing a field would show up as a hole in all three.
func (v *validator) checks() {
	cs := v.c.Checks
	v.ids("checks", "check", len(cs), func(i int) string { return cs[i].ID })
	for i, c := range cs {
		v.require("checks", "check", i, "title", c.Title, "why", c.Why, "bad", c.Bad, "good", c.Good, "fix", c.Fix)
		if c.AntiPattern == "" {
			v.fail(fmt.Errorf("%w (every check names the anti-pattern it finds)", ErrMissingField), at("checks", i, "anti_pattern")...)
		} else {
			v.ref(c.AntiPattern, "anti-pattern", v.antiPatternIDs, at("checks", i, "anti_pattern"))
		}
		if strings.TrimSpace(c.Bad) != "" && strings.TrimSpace(c.Bad) == strings.TrimSpace(c.Good) {
			v.fail(errors.New("bad and good are the same code; the good example shows the fix"), at("checks", i, "good")...)
		}
	}
}

// mapping returns answers[name] as a mapping, reporting any other shape.
func (v *validator) mapping(answers map[string]any, name string, here func(string) []ref) map[string]any {
	x, ok := answers[name]
	if !ok {
		return nil
	}
	m, ok := x.(map[string]any)
	if !ok {
		v.fail(fmt.Errorf("expected a mapping of %s answers", name), here("."+name)...)
	}
	return m
}

func (v *validator) defaults() {
	d := v.c.Defaults
	field := func(name string) []ref { return []ref{{"defaults." + name, ""}, {"defaults", "." + name}} }
	if d.Store == "" {
		v.fail(fmt.Errorf("%w (the store used when none is chosen)", ErrMissingField), field("store")...)
	} else if v.ref(d.Store, "store", v.storeIDs, field("store")) {
		i := v.storeIDs[d.Store]
		s := v.c.Stores[i]
		if s.Rejected {
			v.fail(fmt.Errorf("store %q is rejected: %s", d.Store, s.When), slices.Concat(field("store"), at("stores", i, "rejected"))...)
		}
		if d.TTL > 0 && (d.TTL < s.TTLMin || (s.TTLMax != 0 && d.TTL > s.TTLMax)) {
			v.fail(fmt.Errorf("ttl %s is outside %s's practical range (%s)", d.TTL, d.Store, ttlRange(s)),
				slices.Concat(field("ttl"), field("store"), at("stores", i, "ttl_min"), at("stores", i, "ttl_max"))...)
		}
	}
	for _, f := range []struct {
		name string
		d    Duration
		why  string
	}{
		{"ttl", d.TTL, "how long keys live when no provider's window decides"},
		{"lease_ttl", d.LeaseTTL, "how long an in-progress claim lives before a retry may take it over"},
		{"retry_after", d.RetryAfter, "the Retry-After sent with a 409"},
	} {
		if f.d <= 0 {
			v.fail(fmt.Errorf("%w: %s", ErrMissingField, f.why), field(f.name)...)
		}
	}
	if d.LeaseTTL > d.TTL && d.TTL > 0 {
		v.fail(fmt.Errorf("lease_ttl %s is longer than ttl %s: the key would expire while its claim is still live", d.LeaseTTL, d.TTL),
			append(field("lease_ttl"), field("ttl")...)...)
	}
	for i, kind := range d.AuditRowFor {
		if !validID.MatchString(kind) {
			sub := fmt.Sprintf("[%d]", i)
			v.fail(fmt.Errorf("operation kind %q must be lowercase, e.g. payment", kind),
				ref{"defaults.audit_row_for", sub}, ref{"defaults", ".audit_row_for" + sub})
		}
	}
}
