package spec

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/idemkit/idemkit/internal/rules"
)

// Key sources (Key.Source): who supplies the key, Q1 of the design. A key
// made by the server per attempt is not among them: it defeats the purpose.
const (
	SourceClient   = "client"
	SourceWebhook  = "webhook"
	SourceQueue    = "queue"
	SourceWorkflow = "workflow"
	SourceCron     = "cron"
)

// Collision cases (Collision.Case): the four situations a repeated key can
// meet, Q5 of the design. A spec answers each exactly once.
const (
	CaseCompleted  = "completed"
	CaseInProgress = "in_progress"
	CaseMismatch   = "mismatch"
	CaseExpired    = "expired"
)

// HashSHA256JCS is the canonical request hash idemkit implements: SHA-256
// over the RFC 8785 (JCS) canonical JSON of the included fields.
const HashSHA256JCS = "sha256-jcs"

// Downstream mechanisms (Step.Mechanism): how one side effect is made
// idempotent with its own derived key, Q6 of the design.
const (
	MechanismProviderKey = "provider-key"
	MechanismOnConflict  = "on-conflict"
	MechanismAuditLog    = "audit-log"
	MechanismMessageID   = "message-id"
	// MechanismNatural is an operation idempotent by itself (PUT of a whole
	// resource, an upsert, a deterministic overwrite, a conditional
	// UPDATE): repeating it changes nothing, so it needs no key.
	MechanismNatural = "natural"
	// MechanismGuardRow keeps the external ID the first call returned and
	// looks it up before calling again: for a target with no key, or one
	// that forgets its keys sooner than the operation's retries last.
	MechanismGuardRow = "guard-row"
	// MechanismOutbox writes the message in the business transaction and
	// publishes it after the commit, keyed for the consumer to deduplicate.
	MechanismOutbox = "outbox"
	// MechanismSearch looks the object up by a key stored on it before
	// creating it again after a call whose outcome is unknown (a timeout).
	MechanismSearch = "search-before-create"
)

// Transports (Failure.Transport): the terms a spec's answers are given in.
const (
	TransportHTTP     = "http"
	TransportQueue    = "queue"
	TransportActivity = "activity"
	TransportSchedule = "schedule"
)

// The vocabularies Validate accepts, in the order they are listed in
// messages. Key sources, stores and mechanisms are the embedded catalogue's
// (rules.Default), the one source of each list, so that a spec and the
// design that wrote it agree on what a word means; the constants above name
// the ones the code branches on.
var (
	collisionCases = []string{CaseCompleted, CaseInProgress, CaseMismatch, CaseExpired}
	hashAlgorithms = []string{HashSHA256JCS}
	transports     = []string{TransportHTTP, TransportQueue, TransportActivity, TransportSchedule}
	// keyLocations are where a key is read: the catalogue's location kinds,
	// and a scheduled job's own clock.
	keyLocations = []string{"header", "body", "attribute", "parameter", "record", "schedule"}
	// partLocations are where a part of a key is read from a delivery.
	partLocations = []string{"header", "body", "attribute", "parameter", "record"}
	// actions are the collision answers in transport terms; a mismatch is
	// never answered with one that processes or accepts the payload.
	actions         = []string{"replay", "ack", "skip", "conflict", "wait", "requeue", "retry", "reject", "dead-letter", "non-retryable", "fail", "process"}
	mismatchActions = []string{"reject", "dead-letter", "non-retryable", "fail"}
)

// Mechanisms lists the downstream mechanisms a spec may name.
func Mechanisms() []string { return rules.Default().MechanismIDs() }

func sources() []string    { return rules.Default().SourceIDs() }
func storeKinds() []string { return rules.Default().StoreKinds() }

// CollisionCases lists the four collision cases in the order the collision
// table presents them, for renderers that walk the table.
func CollisionCases() []string { return slices.Clone(collisionCases) }

// FieldError is one problem Validate found, naming the front-matter field so
// that `idemkit specs` can point at it.
type FieldError struct {
	Field string
	Err   error
}

// Error reads "ttl.duration: 1h is shorter than the 3d retry window ...".
func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap exposes the cause, e.g. ErrNewerSchema.
func (e *FieldError) Unwrap() error { return e.Err }

// Validate reports every way s falls short of a complete, consistent design,
// joined with errors.Join so that one run shows them all. Each problem is a
// *FieldError. A spec that parses but does not validate is a design with a
// hole in it: a retry somewhere is not covered.
func (s *Spec) Validate() error {
	problems := s.Problems()
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// Problems is Validate's list of problems, in front-matter order, for
// callers that group them by field, as the rendered self-check does.
func (s *Spec) Problems() []*FieldError {
	var v validator
	v.header(s)
	v.key(&s.Key)
	v.hash(&s.Hash)
	v.store(&s.Store)
	v.ttl(&s.TTL)
	v.collisions(s.Collisions, s.Key.Source)
	v.failure(&s.Failure)
	v.downstream(s.Downstream)
	return v.problems
}

type validator struct {
	problems []*FieldError
}

func (v *validator) addf(field, format string, args ...any) {
	v.problems = append(v.problems, &FieldError{Field: field, Err: fmt.Errorf(format, args...)})
}

func (v *validator) required(field, value string) {
	if strings.TrimSpace(value) == "" {
		v.addf(field, "missing")
	}
}

func (v *validator) oneOf(field, value string, known []string) {
	switch {
	case value == "":
		v.addf(field, "missing; one of %s", strings.Join(known, ", "))
	case !slices.Contains(known, value):
		v.addf(field, "unknown value %q; one of %s", value, strings.Join(known, ", "))
	}
}

func (v *validator) header(s *Spec) {
	switch {
	case s.Schema == 0:
		v.addf("schema", "missing; this idemkit writes schema %d", SchemaVersion)
	case s.Schema < 0:
		v.addf("schema", "%d is not a schema version", s.Schema)
	case s.Schema > SchemaVersion:
		v.problems = append(v.problems, &FieldError{Field: "schema", Err: fmt.Errorf("%w (schema %d); upgrade idemkit", ErrNewerSchema, s.Schema)})
	}
	v.required("idemkit", s.Idemkit)
	v.required("operation", s.Operation)
	if err := ValidSlug(s.Slug); err != nil {
		v.addf("slug", "%v", err)
	}
	if s.Preset != "" {
		// A team's .idemkit.yaml adds presets of its own: the preset is the
		// answers' starting point, not a decision, so any catalogue ID is
		// accepted.
		if err := ValidSlug(s.Preset); err != nil {
			v.addf("preset", "%q is not a preset ID: %v", s.Preset, err)
		}
	}
	v.required("patterns", s.Patterns)
}

func (v *validator) key(k *Key) {
	if k.Source == "server" {
		v.addf("key.source", "a key the server makes per attempt changes on every retry, so it deduplicates nothing; use one of %s", strings.Join(sources(), ", "))
	} else {
		v.oneOf("key.source", k.Source, sources())
	}
	if (k.Source == SourceWebhook || k.Source == SourceQueue) && k.Provider == "" {
		v.addf("key.provider", "missing; a %s key comes from its provider, whose retry window bounds the TTL", k.Source)
	}
	if k.Source == SourceCron && k.Schedule <= 0 {
		v.addf("key.schedule", "missing; a cron key floors the scheduled time to its slot (1h, 1d, ...)")
	}
	if k.In != "" {
		v.oneOf("key.in", k.In, keyLocations)
		v.required("key.name", k.Name)
	}
	v.keyParts(k)
	if k.Source == SourceClient && k.Missing == "" && k.In != "" {
		v.addf("key.missing", "missing; say what a request without a key gets (400)")
	}
	v.required("key.field", k.Field)
	v.required("key.format", k.Format)
	v.required("key.example", k.Example)
	if strings.TrimSpace(k.Scope) == "" {
		v.addf("key.scope", `missing; name what the key is scoped by (e.g. tenant_id), or "unscoped" to make it global on purpose`)
	}
	v.required("key.rationale", k.Rationale)
}

// placeholder matches a placeholder of a key format, {name}.
var placeholder = regexp.MustCompile(`\{([^{}]*)\}`)

// partName is what a key part's placeholder may be called.
var partName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// keyParts checks the key's parts against its format, and a batch's
// events against its parts: each event must be told apart by a part read
// from the event itself.
func (v *validator) keyParts(k *Key) {
	seen := map[string]bool{}
	for i, p := range k.Parts {
		field := fmt.Sprintf("key.parts[%d]", i)
		switch {
		case !partName.MatchString(p.Part):
			v.addf(field+".part", "%q: want a lowercase name like event_id, the placeholder {event_id} in key.format", p.Part)
		case seen[p.Part]:
			v.addf(field+".part", "%q is listed twice", p.Part)
		case !strings.Contains(k.Format, "{"+p.Part+"}"):
			v.addf(field+".part", "key.format %q has no {%s}: the part would be read and never used", k.Format, p.Part)
		}
		seen[p.Part] = true
		v.oneOf(field+".in", p.In, partLocations)
		if slices.Contains(partLocations, p.In) {
			if err := rules.CheckLocation(rules.Location{Kind: p.In, Name: p.Name}); err != nil {
				v.addf(field+".name", "%v", err)
			}
		}
	}
	if len(k.Parts) > 0 {
		for _, m := range placeholder.FindAllStringSubmatch(k.Format, -1) {
			if name := m[1]; name != "provider" && name != "queue" && !seen[name] {
				v.addf("key.format", "{%s} is not one of key.parts, so nothing says where it is read", name)
			}
		}
		if first := k.Parts[0]; k.In != "" && (k.In != first.In || k.Name != first.Name) {
			v.addf("key.in", "%s %s is not key.parts[0] (%s %s), whose location it repeats", k.In, k.Name, first.In, first.Name)
		}
	}
	if k.Items != "" {
		if !k.Batch {
			v.addf("key.items", "set without key.batch; only a batched delivery has an array of events")
		}
		if err := rules.CheckJSONPointer(k.Items); err != nil {
			v.addf("key.items", "%v", err)
		}
	}
	if k.Batch {
		if k.Source != SourceWebhook && k.Source != SourceQueue {
			v.addf("key.batch", "only a webhook or queue delivery carries a batch of events; a %s key is one operation", k.Source)
		}
		inEvent := k.In == rules.LocationBody
		if len(k.Parts) > 0 {
			inEvent = slices.ContainsFunc(k.Parts, func(p KeyPart) bool { return p.In == rules.LocationBody })
		}
		if !inEvent {
			v.addf("key.batch", "no part of the key is read from the event (key.in: body): every event of a delivery would share one key")
		}
	}
	if k.Payload != "" {
		v.oneOf("key.payload", k.Payload, rules.PayloadFormats())
		if k.Source != SourceWebhook && k.Source != SourceQueue {
			v.addf("key.payload", "only a webhook or queue delivery has a payload format of its sender's; a %s key is read from the operation's own input", k.Source)
		}
	}
	if k.Ack != "" {
		if k.Source != SourceWebhook {
			v.addf("key.ack", "only a webhook answers its sender with an acknowledgement body; a %s key has none", k.Source)
		}
		if len(k.Ack) > 255 || strings.IndexFunc(k.Ack, func(r rune) bool { return r < ' ' || r > '~' }) >= 0 {
			v.addf("key.ack", "want one line of at most 255 printable ASCII characters, the body the sender expects")
		}
	}
}

func (v *validator) hash(h *Hash) {
	v.oneOf("hash.algorithm", h.Algorithm, hashAlgorithms)
	included := map[string]bool{}
	for i, name := range h.Include {
		field := fmt.Sprintf("hash.include[%d]", i)
		switch {
		case strings.TrimSpace(name) == "":
			v.addf(field, "empty field name")
		case included[name]:
			v.addf(field, "%q is listed twice", name)
		}
		included[name] = true
	}
	excluded := map[string]bool{}
	for i, f := range h.Exclude {
		field := fmt.Sprintf("hash.exclude[%d]", i)
		switch {
		case strings.TrimSpace(f.Name) == "":
			v.addf(field+".name", "missing")
		case included[f.Name]:
			v.addf(field+".name", "%q is both included in and excluded from the hash", f.Name)
		case excluded[f.Name]:
			v.addf(field+".name", "%q is listed twice", f.Name)
		}
		excluded[f.Name] = true
		if strings.TrimSpace(f.Reason) == "" {
			v.addf(field+".reason", "missing; say why %q is not part of the operation", f.Name)
		}
	}
}

func (v *validator) store(s *Store) {
	if s.Kind == "memcached" {
		v.addf("store.kind", "memcached evicts keys under memory pressure and keeps them minutes, shorter than any retry window; use one of %s", strings.Join(storeKinds(), ", "))
	} else {
		v.oneOf("store.kind", s.Kind, storeKinds())
	}
	v.required("store.name", s.Name)
	v.required("store.primitive", s.Primitive)
	v.required("store.rationale", s.Rationale)
}

func (v *validator) ttl(t *TTL) {
	switch {
	case t.Duration <= 0:
		v.addf("ttl.duration", "missing; keys must expire, and no sooner than the retry window")
	case t.RetryWindow > 0 && t.Duration < t.RetryWindow:
		v.addf("ttl.duration", "%s is shorter than the %s retry window of %s; a late retry would run the operation again", t.Duration, t.RetryWindow, orUnknown(t.WindowSource))
	}
	if t.RetryWindow <= 0 {
		v.addf("ttl.retry_window", "missing; the TTL is justified by the longest retry window of any source")
	}
	v.required("ttl.window_source", t.WindowSource)
	v.required("ttl.justification", t.Justification)
	switch {
	case t.Lease <= 0:
		v.addf("ttl.lease", "missing; without a lease a crashed holder leaves the key in progress until the TTL runs out")
	case t.Duration > 0 && t.Lease > t.Duration:
		v.addf("ttl.lease", "%s outlives the %s TTL; the key would expire while still claimed", t.Lease, t.Duration)
	case t.LongestRun > t.Lease && t.Heartbeat <= 0:
		v.addf("ttl.heartbeat", "missing; a %s run outlives the %s lease, so the next attempt would take the claim over mid-run: renew the lease every third of it", t.LongestRun, t.Lease)
	case t.Heartbeat > 0 && 2*t.Heartbeat > t.Lease:
		v.addf("ttl.heartbeat", "%s renews the %s lease too late; renew at most every half lease", t.Heartbeat, t.Lease)
	}
	if t.LongestRun > 0 && t.LeaseLost == "" {
		v.addf("ttl.lease_lost", "missing; say what a holder that outlives its lease must do")
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unnamed source"
	}
	return s
}

func (v *validator) collisions(cs []Collision, source string) {
	seen := map[string]int{}
	for i, c := range cs {
		field := fmt.Sprintf("collisions[%d]", i)
		v.oneOf(field+".case", c.Case, collisionCases)
		if first, dup := seen[c.Case]; dup && c.Case != "" {
			v.addf(field+".case", "%s is answered twice (first at collisions[%d])", c.Case, first)
		} else {
			seen[c.Case] = i
		}
		v.required(field+".when", c.When)
		v.required(field+".response", c.Response)
		if c.Status != 0 && (c.Status < 100 || c.Status > 599) {
			v.addf(field+".status", "%d is not an HTTP status", c.Status)
		}
		if c.Action != "" {
			v.oneOf(field+".action", c.Action, actions)
		}
		switch c.Case {
		case CaseMismatch:
			if c.Status != 0 && (c.Status < 400 || c.Status > 499) {
				v.addf(field+".status", "%d would accept a different payload under the same key; answer 422", c.Status)
			}
			if c.Action != "" && !slices.Contains(mismatchActions, c.Action) {
				v.addf(field+".action", "%s would accept a different payload under the same key; answer one of %s", c.Action, strings.Join(mismatchActions, ", "))
			}
		case CaseInProgress:
			// A webhook sender retries on its own schedule, whatever
			// Retry-After says; only a client is told when.
			if c.Status == 409 && c.RetryAfter <= 0 && source == SourceClient {
				v.addf(field+".retry_after", "missing; a 409 tells the client when to retry with Retry-After")
			}
		}
	}
	for _, c := range collisionCases {
		if _, ok := seen[c]; !ok {
			v.addf("collisions", "no row for %s; all four cases (%s) must be answered", c, strings.Join(collisionCases, ", "))
		}
	}
}

func (v *validator) failure(f *Failure) {
	if *f == (Failure{}) {
		return
	}
	v.oneOf("failure.transport", f.Transport, transports)
	v.required("failure.answer", f.Answer)
	if f.Transport == TransportQueue && f.MaxDeliveries <= 0 {
		v.addf("failure.max_deliveries", "missing; a queue dead-letters a poison message after N deliveries, or redelivers it forever")
	}
	if f.Transport != TransportQueue && (f.MaxDeliveries != 0 || f.DeadLetter != "") {
		v.addf("failure.max_deliveries", "only a queue dead-letters after N deliveries; a %s operation has no delivery count", f.Transport)
	}
}

func (v *validator) downstream(steps []Step) {
	names := map[string]int{}
	keys := map[string]int{}
	for i, st := range steps {
		field := fmt.Sprintf("downstream[%d]", i)
		v.required(field+".name", st.Name)
		v.oneOf(field+".mechanism", st.Mechanism, Mechanisms())
		v.required(field+".key", st.Key)
		if st.Item != "" && !strings.Contains(st.Key, "{"+st.Item+"}") {
			v.addf(field+".key", "%q does not carry the item {%s}: every item of the run would share one key", st.Key, st.Item)
		}
		for _, b := range st.BusinessKey {
			if !strings.Contains(st.Key, "{"+b+"}") {
				v.addf(field+".key", "%q does not carry the business key's {%s}", st.Key, b)
			}
		}
		if st.Repeat != "" {
			v.oneOf(field+".repeat", st.Repeat, rules.RepeatAnswers())
		}
		if st.Spec != "" && (!strings.HasPrefix(st.Spec, "idempotency-") || !strings.HasSuffix(st.Spec, ".md") || strings.ContainsAny(st.Spec, "/\\")) {
			v.addf(field+".spec", "%q: want the file name of a spec in the same directory, idempotency-<slug>.md", st.Spec)
		}
		if first, dup := names[st.Name]; dup && st.Name != "" {
			v.addf(field+".name", "%q is also downstream[%d]; each step needs its own name", st.Name, first)
		} else {
			names[st.Name] = i
		}
		if first, dup := keys[st.Key]; dup && st.Key != "" {
			v.addf(field+".key", "%q is also the key of downstream[%d]; two side effects sharing a key deduplicate each other", st.Key, first)
		} else {
			keys[st.Key] = i
		}
	}
}
