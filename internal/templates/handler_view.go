package templates

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/textproto"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// handlerView is what the handler templates read: the spec's decisions turned into Go names,
// expressions and test payloads, so the templates hold no logic beyond choosing blocks.
type handlerView struct {
	Spec *spec.Spec
	HandlerOptions
	// RuntimeAlias is set when the core package is not named idem: it is imported as idem.
	RuntimeAlias bool
	// IdemFile and WorkFile are the wiring's and the skeleton's file names, which each one's
	// comments point to.
	IdemFile, WorkFile string

	// Desc is the spec's description, or empty when it only repeats the operation's name.
	Desc string
	// ServiceMethods are the methods of the skeleton's service type, named after the Options
	// fields they fill.
	ServiceMethods []string
	// Op is the exported prefix of every name (ChargeCard), Un the unexported one (chargeCard).
	Op, Un string

	TTL, Lease, RetryAfter time.Duration
	Exclude                []string
	Steps                  []stepView

	Completed, InProgress, Mismatch, Expired spec.Collision
	// Ack: a completed key is acknowledged rather than its response replayed. Wait: a retry
	// that finds the key in progress waits on the claim for RetryAfter before answering.
	Ack, Wait bool
	// Audit: the spec keeps an audit row of each completed operation (store.audit_row), which
	// the generated code writes through an idem.AuditLog.
	Audit bool

	// Client keys: the header the key is read from, whether it is another than the
	// middleware's default Idempotency-Key, and whether keys are scoped by a tenant.
	Header       string
	CustomHeader bool
	Scoped       bool

	// Webhook keys: the event ID comes from the header IDHeader or the JSON body path IDPath.
	IDHeader string
	IDPath   []string

	// BodyKey is the JSON pointer of a client key read from the request body rather than a
	// header; Header is then the header the generated code hands it to the middleware in.
	BodyKey       string
	BodyKeyTokens []string

	// Batch: a webhook whose key has several parts, or whose delivery carries several events,
	// each keyed, claimed, completed or released on its own (webhook_batch.go.tmpl). Parts are
	// the key's parts; Separators the format's text between them, which no part may contain,
	// or two different events could make one key. BodyParts: some part is read from the body.
	Batch      bool
	Parts      []partView
	Separators []string
	BodyParts  bool
	// Test deliveries of a batch: TestSets fill one event's JSON, the envelope wraps events
	// into a delivery, and IDPart is the part the tests vary from event to event.
	TestSets               []testSet
	EnvelopeOpen, EnvClose string
	IDPart                 partView
	// NotArray is a delivery with an object where the events' array belongs.
	NotArray string

	// KeyExpr is the Go expression of the stored key, per the spec's key format; Fields are the
	// format's placeholders that the caller supplies (queue messages, workflow steps).
	KeyExpr string
	Fields  []fieldView
	// Slot is the cron slot the scheduled time is floored to; Zone the IANA zone on whose wall
	// clock it is floored, empty for UTC; SlotDays says the slot is whole days (floored on the
	// calendar, so that a day starts at local midnight even across a change of daylight saving
	// time); BusinessDate that the key carries the slot's date rather than its start.
	Slot         time.Duration
	Zone         string
	SlotDays     bool
	BusinessDate bool
	// ZoneCases are the generated tests of the zone: a scheduled time whose slot in Zone differs
	// from its slot in UTC, and, for a slot shorter than a day in a zone with daylight saving
	// time, one on the day the clocks go forward; with the slot and key the spec gives each.
	ZoneCases []zoneCase

	// Payloads of the generated tests: the first attempt, a retry differing only in excluded
	// fields, and a different operation under the same key.
	Body, Retry, Other string
}

// stepView is one downstream step: its field in the Keys struct and the step name its key is
// derived with.
type stepView struct {
	Field, Derive string
	// Literal marks a business key: Derive is its first part as written,
	// not a step name derived from the parent.
	Literal bool
	Step    spec.Step
	Use     string
}

// partView is one part of a batch's key: where it is read and the Event field it fills.
type partView struct {
	spec.KeyPart
	Field string
	// Tokens are a body part's JSON pointer, unescaped.
	Tokens []string
}

// testSet is one value a generated test puts into an event's JSON: Path from the event's root,
// Expr a Go expression (a parameter of the builder, or a quoted literal).
type testSet struct {
	Path []string
	Expr string
}

// fieldView is one placeholder of the key format, supplied by the caller.
type fieldView struct {
	Name, Placeholder string
}

// mechanismUse says, for the skeleton's comments, what the work does with a step's key: the
// catalogue's text for the mechanism, with %s where the target's name goes.
func mechanismUse(id string) string {
	if m, ok := rules.Default().Mechanism(id); ok && m.Use != "" {
		return m.Use
	}
	return "use it with %s as the " + id + " mechanism says"
}

func fieldErr(field, format string, a ...any) error {
	return &spec.FieldError{Field: field, Err: fmt.Errorf(format, a...)}
}

func newHandlerView(s *spec.Spec, opts HandlerOptions) (*handlerView, error) {
	v := &handlerView{
		Spec:           s,
		HandlerOptions: opts,
		TTL:            time.Duration(s.TTL.Duration),
		Lease:          time.Duration(s.TTL.Lease),
	}
	if v.RuntimePackage == "" {
		v.RuntimePackage = defaultPackage(opts.Runtime)
	}
	v.RuntimeAlias = v.RuntimePackage != coreName
	if !strings.EqualFold(strings.TrimSpace(s.Description), strings.TrimSpace(s.Operation)) {
		v.Desc = s.Description
	}
	v.Op = exportedName(s.Slug)
	v.Un = unexported(v.Op)
	for i, name := range s.Hash.Exclude {
		if slices.Contains(strings.Split(name.Name, "."), "") {
			return nil, fieldErr(fmt.Sprintf("hash.exclude[%d].name", i), "%q has an empty segment; a nested field is written parent.child", name.Name)
		}
		v.Exclude = append(v.Exclude, name.Name)
	}
	if err := v.steps(s.Downstream); err != nil {
		return nil, err
	}
	if err := v.collisions(s); err != nil {
		return nil, err
	}
	var err error
	switch s.Key.Source {
	case spec.SourceClient:
		err = v.client(s)
	case spec.SourceWebhook:
		err = v.webhook(s)
	case spec.SourceQueue:
		err = v.fields(s, "m", "Body")
	case spec.SourceWorkflow:
		err = v.fields(s, "run", "Input")
	case spec.SourceCron:
		err = v.cron(s)
	}
	if err != nil {
		return nil, err
	}
	v.payloads(s)
	switch {
	case v.Scoped:
		v.ServiceMethods = []string{"Tenant", "Work"}
	case s.Key.Source == spec.SourceWebhook:
		v.ServiceMethods = []string{"Verify", "Work"}
	default:
		v.ServiceMethods = []string{"Work"}
	}
	return v, nil
}

// deriveStep matches the step names idem.Derive accepts.
var deriveStep = regexp.MustCompile(`^[A-Za-z0-9._-]{1,32}$`)

// steps names each downstream step's key. The derived name is the part of the spec's key after
// "{key}:", which Decide makes from the step's name, so the generated Derive call and the spec's
// key column say the same thing.
func (v *handlerView) steps(steps []spec.Step) error {
	seen := map[string]int{"Parent": -1}
	for i, st := range steps {
		name, literal, extra, ok := stepKeyParts(&st)
		if !ok || !deriveStep.MatchString(name) {
			return fieldErr(fmt.Sprintf("downstream[%d].key", i), "%q: want {key}:STEP, {key}:STEP:{item} or STEP:{field}...: with STEP 1 to 32 of A-Z a-z 0-9 . _ - (the step name idem.Derive takes)", st.Key)
		}
		field := exportedName(name)
		if first, dup := seen[field]; dup {
			other := "the parent key's field"
			if first >= 0 {
				other = fmt.Sprintf("downstream[%d]", first)
			}
			return fieldErr(fmt.Sprintf("downstream[%d].key", i), "%q names the Go field %s, as %s does; rename one step", st.Key, field, other)
		}
		seen[field] = i
		use := fmt.Sprintf(mechanismUse(st.Mechanism), commentText(st.Target)) + extra
		v.Steps = append(v.Steps, stepView{Field: field, Derive: name, Literal: literal, Step: st, Use: use})
	}
	return nil
}

// stepKeyParts reads a step's key: {key}:STEP, derived from the parent;
// {key}:STEP:{item}, derived per item of a run; or STEP:{field}..., a
// business key made of the fact's fields. extra says, for the skeleton's
// comments, what the caller adds to the generated prefix.
func stepKeyParts(st *spec.Step) (name string, literal bool, extra string, ok bool) {
	if rest, found := strings.CutPrefix(st.Key, "{key}:"); found {
		if st.Item == "" {
			return rest, false, "", true
		}
		name, found = strings.CutSuffix(rest, ":{"+st.Item+"}")
		return name, false, "; per item: append \":\" and the item's " + st.Item + ", and claim and release each item's key on its own", found
	}
	if len(st.BusinessKey) == 0 {
		return "", false, "", false
	}
	name, fields, found := strings.Cut(st.Key, ":")
	return name, true, "; a business key: append \":\" and " + strings.ReplaceAll(fields, "}:{", ", \":\", ") + ", the fact's own fields, not this delivery's key", found
}

// collisions reads the four answers, refusing those the generated code could not give.
func (v *handlerView) collisions(s *spec.Spec) error {
	index := map[string]int{}
	for i, c := range s.Collisions {
		index[c.Case] = i
		switch c.Case {
		case spec.CaseCompleted:
			v.Completed = c
		case spec.CaseInProgress:
			v.InProgress = c
		case spec.CaseMismatch:
			v.Mismatch = c
		case spec.CaseExpired:
			v.Expired = c
		}
	}
	v.Ack = v.Completed.Policy == "ack"
	v.Audit = s.Store.AuditRow
	v.Wait = v.InProgress.Policy == "wait"
	v.RetryAfter = time.Duration(v.InProgress.RetryAfter)
	if v.RetryAfter <= 0 {
		v.RetryAfter = 5 * time.Second
	}
	field := func(c string) string { return fmt.Sprintf("collisions[%d]", index[c]) }
	if v.InProgress.Policy == "requeue" && s.Key.Source != spec.SourceQueue {
		return fieldErr(field(spec.CaseInProgress)+".policy", "requeue is for queue consumers; a %s key answers conflict or wait", s.Key.Source)
	}
	if v.Mismatch.Status == 0 {
		v.Mismatch.Status = 422
	}
	if v.InProgress.Status == 0 {
		v.InProgress.Status = 409
	}
	if s.Key.Source != spec.SourceClient {
		return nil
	}
	// idemhttp gives the HTTP answers itself; a spec asking for others cannot be followed.
	switch {
	case v.Ack:
		return fieldErr(field(spec.CaseCompleted)+".policy", "ack answers a retrying client with an empty 200 instead of its result; a client key replays")
	case v.InProgress.Status != 409:
		return fieldErr(field(spec.CaseInProgress)+".status", "%d: the Idempotency-Key middleware answers a request in progress with 409", v.InProgress.Status)
	case v.Mismatch.Status != 422:
		return fieldErr(field(spec.CaseMismatch)+".status", "%d: the Idempotency-Key middleware answers a reused key with 422", v.Mismatch.Status)
	}
	return nil
}

func (v *handlerView) client(s *spec.Spec) error {
	where, name, err := keyLocation(&s.Key)
	switch {
	case err != nil:
		return err
	case where == rules.LocationBody:
		// The middleware reads keys from a header: the generated code hands it the body's.
		v.BodyKey, v.BodyKeyTokens, name = name, pointerTokens(name), "Idempotency-Key"
		if slices.ContainsFunc(v.BodyKeyTokens, func(t string) bool { return t == "" || strings.Contains(t, ".") }) {
			return fieldErr("key.name", "%q: the generated handler reads a field name without '.' at each level", v.BodyKey)
		}
	case where != rules.LocationHeader:
		return fieldErr("key.in", "%q: a client key is read from a request header or a body field", where)
	}
	v.Header = name
	v.CustomHeader = textproto.CanonicalMIMEHeaderKey(name) != "Idempotency-Key"
	v.Scoped = s.Key.Scope != "unscoped"
	return nil
}

// concat is the Go expression joining parts, each a quoted literal or an expression, with
// neighbouring literals merged into one.
func concat(parts []keyExprPart) string {
	var out []string
	lit, inLit := "", false
	flush := func() {
		if inLit {
			out = append(out, strconv.Quote(lit))
		}
		lit, inLit = "", false
	}
	for _, p := range parts {
		if p.literal {
			lit, inLit = lit+p.text, true
			continue
		}
		flush()
		out = append(out, p.text)
	}
	flush()
	return strings.Join(out, " + ")
}

// keyExprPart is a piece of a key expression: literal text, or a Go expression.
type keyExprPart struct {
	text    string
	literal bool
}

// keyLocation is where a one-value key is read, as the spec records it: key.in and key.name,
// or, in a spec written before they were recorded, the words of key.field. A body location is
// returned as a JSON pointer.
func keyLocation(k *spec.Key) (where, name string, err error) {
	switch {
	case len(k.Parts) == 1:
		return k.Parts[0].In, k.Parts[0].Name, nil
	case k.In != "":
		return k.In, k.Name, nil
	}
	where, name, err = keyField(k.Field)
	if err != nil {
		return "", "", fieldErr("key.field", "%q: %v", k.Field, err)
	}
	if where == rules.LocationBody {
		name = "/" + strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1"), ".", "/")
	}
	return where, name, nil
}

// pointerTokens splits a JSON pointer into its unescaped reference tokens.
func pointerTokens(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(t)
	}
	return toks
}

func (v *handlerView) webhook(s *spec.Spec) error {
	if s.Key.Batch || len(s.Key.Parts) > 1 {
		return v.batch(s)
	}
	where, name, err := keyLocation(&s.Key)
	if err != nil {
		return err
	}
	switch where {
	case rules.LocationHeader:
		v.IDHeader = name
	case rules.LocationBody:
		v.IDPath = pointerTokens(name)
		if slices.ContainsFunc(v.IDPath, func(t string) bool { return t == "" || strings.Contains(t, ".") }) {
			return fieldErr("key.name", "%q: the generated receiver reads a field name without '.' at each level", name)
		}
	default:
		return fieldErr("key.in", "%q: a webhook's event ID is read from a header or the body", where)
	}
	parts, err := parseFormat(s.Key.Format)
	if err != nil {
		return fieldErr("key.format", "%v", err)
	}
	var expr []keyExprPart
	ids := 0
	for _, p := range parts {
		switch {
		case !p.placeholder:
			expr = append(expr, keyExprPart{p.text, true})
		case p.text == "provider":
			expr = append(expr, keyExprPart{s.Key.Provider, true})
		default:
			ids++
			expr = append(expr, keyExprPart{text: "id"})
		}
	}
	if ids != 1 {
		return fieldErr("key.format", "%q: a webhook key has one placeholder for the event ID (and optionally {provider}); this has %d", s.Key.Format, ids)
	}
	v.KeyExpr = concat(expr)
	return nil
}

// eventFields are the fields of a batch's Event type besides the key's parts.
var eventFields = []string{"Key", "Index", "Item", "Header", "Body"}

// batch reads a webhook key of several parts, or one read from each event of a batched
// delivery: each part becomes a field of the Event, and the key is the format with the provider
// and the parts put in.
func (v *handlerView) batch(s *spec.Spec) error {
	v.Batch = true
	parts := s.Key.Parts
	if len(parts) == 0 {
		where, name, err := keyLocation(&s.Key)
		if err != nil {
			return err
		}
		var id string
		for _, p := range mustParse(s.Key.Format) {
			if p.placeholder && p.text != "provider" {
				id = p.text
			}
		}
		parts = []spec.KeyPart{{Part: orDefault(id, "event_id"), In: where, Name: name}}
	}
	for i, p := range parts {
		field := fmt.Sprintf("key.parts[%d]", i)
		if p.In != rules.LocationHeader && p.In != rules.LocationBody {
			return fieldErr(field+".in", "%q: a webhook reads its key from headers and the body", p.In)
		}
		pv := partView{KeyPart: p, Field: exportedName(p.Part)}
		if p.In == rules.LocationBody {
			pv.Tokens = pointerTokens(p.Name)
		}
		if slices.Contains(eventFields, pv.Field) {
			return fieldErr(field+".part", "%q would be the Event field %s, which holds the event's %s; rename the part", p.Part, pv.Field, strings.ToLower(pv.Field))
		}
		if p.In == rules.LocationBody {
			v.BodyParts = true
			if v.IDPart.Part == "" || v.IDPart.In != rules.LocationBody {
				v.IDPart = pv
			}
		} else if v.IDPart.Part == "" {
			v.IDPart = pv
		}
		v.Parts = append(v.Parts, pv)
	}
	format, err := parseFormat(s.Key.Format)
	if err != nil {
		return fieldErr("key.format", "%v", err)
	}
	isPart := func(p formatPart) bool { return p.placeholder && p.text != "provider" }
	first, last := slices.IndexFunc(format, isPart), len(format)-1
	for last >= 0 && !isPart(format[last]) {
		last--
	}
	var expr []keyExprPart
	used := 0
	for i, p := range format {
		switch {
		case !p.placeholder:
			expr = append(expr, keyExprPart{p.text, true})
			if first < i && i < last && !slices.Contains(v.Separators, p.text) {
				v.Separators = append(v.Separators, p.text)
			}
		case p.text == "provider":
			expr = append(expr, keyExprPart{s.Key.Provider, true})
		default:
			j := slices.IndexFunc(v.Parts, func(pv partView) bool { return pv.Part == p.text })
			if j < 0 {
				return fieldErr("key.format", "{%s} is not one of the key's parts (%s)", p.text, partNames(v.Parts))
			}
			used++
			expr = append(expr, keyExprPart{text: "ev." + v.Parts[j].Field})
		}
	}
	if used == 0 {
		return fieldErr("key.format", "%q has none of the key's parts, so every event would share one key", s.Key.Format)
	}
	v.KeyExpr = concat(expr)
	v.Envelope(s.Key)
	return nil
}

func partNames(parts []partView) string {
	names := make([]string, len(parts))
	for i, p := range parts {
		names[i] = "{" + p.Part + "}"
	}
	return strings.Join(names, ", ")
}

// mustParse is parseFormat for a format whose errors are reported elsewhere.
func mustParse(f string) []formatPart {
	parts, _ := parseFormat(f)
	return parts
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Envelope sets the JSON the tests wrap their events in: the array at the key's items pointer,
// or the body itself; for a delivery of one event, nothing.
func (v *handlerView) Envelope(k spec.Key) {
	if !k.Batch {
		return
	}
	open, close, notArray := "[", "]", "{}"
	toks := pointerTokens(k.Items)
	for i := len(toks) - 1; i >= 0; i-- {
		name, _ := json.Marshal(toks[i]) // a string: cannot fail
		open, close, notArray = "{"+string(name)+":"+open, close+"}", "{"+string(name)+":"+notArray+"}"
	}
	v.EnvelopeOpen, v.EnvClose, v.NotArray = open, close, notArray
}

// fields makes each placeholder of the key format a string field of the caller's value recv,
// beside its payload field.
func (v *handlerView) fields(s *spec.Spec, recv, payload string) error {
	parts, err := parseFormat(s.Key.Format)
	if err != nil {
		return fieldErr("key.format", "%v", err)
	}
	var expr []keyExprPart
	for _, p := range parts {
		switch {
		case !p.placeholder:
			expr = append(expr, keyExprPart{p.text, true})
			continue
		case p.text == "provider" && s.Key.Provider != "":
			expr = append(expr, keyExprPart{s.Key.Provider, true})
			continue
		case !placeholderName.MatchString(p.text):
			return fieldErr("key.format", "placeholder {%s}: want a lowercase name like {message_id}, which becomes a field of the generated type", p.text)
		}
		name := exportedName(p.text)
		if name == payload {
			return fieldErr("key.format", "placeholder {%s} would be the field %s, which holds the payload; rename it", p.text, payload)
		}
		if !slices.ContainsFunc(v.Fields, func(f fieldView) bool { return f.Name == name }) {
			v.Fields = append(v.Fields, fieldView{Name: name, Placeholder: p.text})
		}
		expr = append(expr, keyExprPart{text: recv + "." + name})
	}
	if len(v.Fields) == 0 {
		return fieldErr("key.format", "%q has no placeholder, so every %s would share one key", s.Key.Format, map[string]string{"m": "message", "run": "run of the step"}[recv])
	}
	v.KeyExpr = concat(expr)
	return nil
}

func (v *handlerView) cron(s *spec.Spec) error {
	parts, err := parseFormat(s.Key.Format)
	if err != nil {
		return fieldErr("key.format", "%v", err)
	}
	var expr []keyExprPart
	slots := 0
	for _, p := range parts {
		switch {
		case !p.placeholder:
			expr = append(expr, keyExprPart{p.text, true})
		case strings.HasPrefix(p.text, "scheduled_time"):
			slots++
			layout := "time.RFC3339"
			if s.Key.BusinessDate {
				layout = "time.DateOnly"
			}
			expr = append(expr, keyExprPart{text: "slot.Format(" + layout + ")"})
		default:
			return fieldErr("key.format", "placeholder {%s}: a cron key is the job and its slot, {scheduled_time floored to ...}", p.text)
		}
	}
	if slots == 0 {
		return fieldErr("key.format", "%q has no {scheduled_time ...}, so every run of the job would share one key", s.Key.Format)
	}
	v.Slot = time.Duration(s.Key.Schedule)
	v.SlotDays = v.Slot%(24*time.Hour) == 0
	v.BusinessDate = s.Key.BusinessDate
	zone, loc, field, err := rules.CronZone(s.Key.TimeZone, v.Slot, v.BusinessDate)
	if err != nil {
		return fieldErr(field, "%v", err)
	}
	if zone != "UTC" {
		v.Zone = zone
		keyOf := func(why string, at, want time.Time) zoneCase {
			text := want.Format(time.RFC3339)
			if v.BusinessDate {
				text = want.Format(time.DateOnly)
			}
			var key strings.Builder
			for _, p := range parts {
				if p.placeholder {
					key.WriteString(text)
				} else {
					key.WriteString(p.text)
				}
			}
			return zoneCase{Why: why, At: goTime(at), Slot: goTime(want), Key: key.String()}
		}
		at, want := zoneCaseTimes(loc, v.Slot)
		v.ZoneCases = append(v.ZoneCases, keyOf("a time whose slot in "+zone+" is not its slot in UTC", at, want))
		if day, ok := springForward(loc); ok && v.Slot < 24*time.Hour {
			at, want := wallSlot(day.Add(15*time.Hour+29*time.Minute), v.Slot)
			v.ZoneCases = append(v.ZoneCases, keyOf(day.Format(time.DateOnly)+", the day the clocks go forward: the slot is still counted on the wall clock", at, want))
		}
		if back, ok := fallBack(loc); ok && time.Hour%v.Slot == 0 {
			// Both passes of the repeated hour, 29 minutes in: each in a slot of its own.
			step := 29 * time.Minute / v.Slot * v.Slot
			first := back.Add(-time.Hour + 29*time.Minute)
			v.ZoneCases = append(v.ZoneCases,
				keyOf(first.Format("15:04")+" on "+back.Format(time.DateOnly)+", the first time: the clocks go back an hour later", first, back.Add(-time.Hour+step)),
				keyOf(first.Format("15:04")+" on "+back.Format(time.DateOnly)+", the second time: a slot of its own", back.Add(29*time.Minute), back.Add(step)))
		}
	}
	v.KeyExpr = concat(expr)
	return nil
}

// zoneCase is a scheduled time (At, Go source of a UTC time) whose slot on the zone's wall clock
// (Slot, Go source) the generated code must find, and its key (Key); Why says what it tests.
type zoneCase struct{ Why, At, Slot, Key string }

// zoneCaseTimes picks the scheduled time a generated test checks the zone with, and the slot it
// falls in: half an hour into a local day for a zone ahead of UTC (the evening before, in UTC),
// half an hour before its end for one behind (the next morning, in UTC), and for a slot shorter
// than a day mid-afternoon, where an offset that is not a multiple of the slot shows. The slot
// is worked out on the wall clock, the way a person reads a schedule, not with the generated
// code's arithmetic.
func zoneCaseTimes(loc *time.Location, slot time.Duration) (at, want time.Time) {
	day := time.Date(2026, 3, 14, 0, 0, 0, 0, loc)
	if _, off := day.Zone(); off == 0 {
		day = time.Date(2026, 7, 14, 0, 0, 0, 0, loc) // a zone on UTC in winter, ahead in summer
	}
	at = day.Add(30 * time.Minute)
	if _, off := day.Zone(); off < 0 {
		at = day.Add(23*time.Hour + 30*time.Minute)
	}
	switch {
	case slot < 24*time.Hour:
		return wallSlot(day.Add(15*time.Hour+29*time.Minute), slot)
	case slot == 24*time.Hour:
		want = day
	default: // several days: counted on the calendar from the zero time, as UTC slots are
		d := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC).Truncate(slot)
		want = time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
	}
	return at, want
}

// wallSlot is at and the start of its slot shorter than a day, read off the wall clock: the
// minutes since midnight on at's clock face, floored to the slot, on at's date. At is an
// unambiguous time (not in an hour the clocks pass twice).
func wallSlot(at time.Time, slot time.Duration) (time.Time, time.Time) {
	minutes, step := at.Hour()*60+at.Minute(), int(slot/time.Minute)
	return at, time.Date(at.Year(), at.Month(), at.Day(), 0, minutes/step*step, 0, 0, at.Location())
}

// springForward is local midnight of the first day of 2026 on which loc's clocks go forward,
// if they ever do.
func springForward(loc *time.Location) (time.Time, bool) {
	for d := time.Date(2026, 1, 1, 0, 0, 0, 0, loc); d.Year() == 2026; d = d.AddDate(0, 0, 1) {
		_, start := d.Zone()
		_, end := d.Add(23 * time.Hour).Zone()
		if end > start {
			return d, true
		}
	}
	return time.Time{}, false
}

// fallBack is the instant in 2026 at which loc's clocks go back an hour, if they do: the hour
// before it comes again after it.
func fallBack(loc *time.Location) (time.Time, bool) {
	for t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); t.Year() == 2026; t = t.Add(time.Hour) {
		_, before := t.In(loc).Zone()
		_, after := t.Add(time.Hour).In(loc).Zone()
		if before-after == 3600 {
			return t.Add(time.Hour).In(loc), true
		}
	}
	return time.Time{}, false
}

// goTime is the Go source of t, in UTC, to the minute.
func goTime(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("time.Date(%d, %d, %d, %d, %d, 0, 0, time.UTC)", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute())
}

// keyField reads where a key comes from, as specs write it: "header NAME" or "body FIELD",
// optionally followed by a remark in parentheses or after a comma.
func keyField(field string) (where, name string, err error) {
	const want = `want "header NAME" or "body FIELD" (a JSON field, parent.child when nested), then an optional remark in parentheses`
	words := strings.Fields(field)
	if len(words) < 2 || words[0] != "header" && words[0] != "body" {
		return "", "", errors.New(want)
	}
	where, name = words[0], words[1]
	name, comma := strings.CutSuffix(name, ",")
	if len(words) > 2 && !comma && !strings.HasPrefix(words[2], "(") {
		return "", "", errors.New(want)
	}
	if where == "header" && (name == "" || strings.ContainsFunc(name, func(r rune) bool { return r > unicode.MaxASCII || !isTokenChar(byte(r)) })) {
		return "", "", fmt.Errorf("header name %q is not an HTTP field name", name)
	}
	if where == "body" && (slices.Contains(strings.Split(name, "."), "") || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r >= unicode.MaxASCII || r == '"' || r == '\\' })) {
		return "", "", fmt.Errorf("body field %q: want a JSON field name, parent.child when nested", name)
	}
	return where, name, nil
}

// isTokenChar reports whether c may appear in an HTTP field name (RFC 9110 token).
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

type formatPart struct {
	text        string
	placeholder bool
}

var placeholderName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// parseFormat splits a key format such as "{workflow_id}:charge:{invoice_id}" into literal text
// and placeholders.
func parseFormat(f string) ([]formatPart, error) {
	var parts []formatPart
	for rest := f; rest != ""; {
		open := strings.IndexAny(rest, "{}")
		switch {
		case open < 0:
			parts = append(parts, formatPart{text: rest})
			rest = ""
			continue
		case rest[open] == '}':
			return nil, fmt.Errorf("%q has a } without its {", f)
		case open > 0:
			parts = append(parts, formatPart{text: rest[:open]})
		}
		end := strings.IndexAny(rest[open+1:], "{}")
		if end < 0 || rest[open+1+end] == '{' {
			return nil, fmt.Errorf("%q has a { without its }", f)
		}
		name := strings.TrimSpace(rest[open+1 : open+1+end])
		if name == "" {
			return nil, fmt.Errorf("%q has an empty placeholder {}", f)
		}
		parts = append(parts, formatPart{text: name, placeholder: true})
		rest = rest[open+2+end:]
	}
	return parts, nil
}

// initialisms are spelled in capitals in Go names, as golint and the standard library do.
var initialisms = map[string]string{"id": "ID", "ids": "IDs", "url": "URL", "uri": "URI", "http": "HTTP", "api": "API", "uuid": "UUID", "json": "JSON", "ip": "IP", "sql": "SQL"}

// exportedName turns a slug, step or placeholder name into an exported Go name: charge-card
// becomes ChargeCard, workflow_id WorkflowID. A name starting with a digit gets Op in front.
func exportedName(s string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if up, ok := initialisms[strings.ToLower(w)]; ok {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	name := b.String()
	if name == "" || !unicode.IsLetter(rune(name[0])) {
		name = "Op" + name
	}
	return name
}

// unexported lowers the leading capitals of an exported name the way Go names read: ChargeCard
// becomes chargeCard, IDVerify idVerify, HTTP http.
func unexported(name string) string {
	n := 0
	for n < len(name) && unicode.IsUpper(rune(name[n])) {
		n++
	}
	if n > 1 && n < len(name) && unicode.IsLower(rune(name[n])) {
		n--
	}
	return strings.ToLower(name[:n]) + name[n:]
}

// payloads builds the tests' JSON bodies from the hash fields: included fields fixed, excluded
// fields different between the first attempt and its retry (so the retry proves they are left
// out of the fingerprint), and one included field changed for the mismatch. A webhook whose
// event ID is in the body carries it in all three.
func (v *handlerView) payloads(s *spec.Spec) {
	if v.Batch {
		v.batchPayloads(s)
		return
	}
	idPath := strings.Join(v.IDPath, ".")
	keyPath := strings.Join(v.BodyKeyTokens, ".")
	conflicts := func(name string) bool {
		return slices.ContainsFunc([]string{idPath, keyPath}, func(p string) bool {
			return p != "" && (name == p || strings.HasPrefix(p, name+".") || strings.HasPrefix(name, p+"."))
		})
	}
	changed := ""
	for _, name := range s.Hash.Include {
		if !conflicts(name) && !slices.Contains(v.Exclude, name) {
			changed = name
			break
		}
	}
	if changed == "" {
		changed = "payload"
		for i := 2; slices.Contains(v.Exclude, changed) || slices.Contains(s.Hash.Include, changed) || conflicts(changed); i++ {
			changed = fmt.Sprintf("payload%d", i)
		}
	}
	build := func(attempt, value string) string {
		doc := map[string]any{}
		setPath(doc, changed, value)
		for _, name := range s.Hash.Include {
			if name != changed {
				setPath(doc, name, name+"-1")
			}
		}
		for _, name := range v.Exclude {
			setPath(doc, name, attempt)
		}
		if idPath != "" {
			setPath(doc, idPath, "event-1")
		}
		b, _ := json.Marshal(doc) // strings in maps: cannot fail
		return string(b)
	}
	v.Body = build("first-attempt", changed+"-1")
	v.Retry = build("second-attempt", changed+"-1")
	v.Other = build("first-attempt", changed+"-2")
}

// batchPayloads makes the tests' event builder: the part the tests vary is the builder's id,
// other body parts fixed, one hash field the builder's payload and the excluded fields its
// attempt; every path relative to one event. A later set on the same path wins, as in setPath.
func (v *handlerView) batchPayloads(s *spec.Spec) {
	var partPaths []string
	for _, p := range v.Parts {
		if p.In == rules.LocationBody {
			partPaths = append(partPaths, strings.Join(pointerTokens(p.Name), "."))
		}
	}
	conflicts := func(name string) bool {
		return slices.ContainsFunc(partPaths, func(p string) bool {
			return name == p || strings.HasPrefix(p, name+".") || strings.HasPrefix(name, p+".")
		})
	}
	changed := ""
	for _, name := range s.Hash.Include {
		if !conflicts(name) && !slices.Contains(v.Exclude, name) {
			changed = name
			break
		}
	}
	if changed == "" {
		changed = "payload"
		for i := 2; slices.Contains(v.Exclude, changed) || slices.Contains(s.Hash.Include, changed) || conflicts(changed); i++ {
			changed = fmt.Sprintf("payload%d", i)
		}
	}
	for _, name := range s.Hash.Include {
		if name != changed && !conflicts(name) {
			v.TestSets = append(v.TestSets, testSet{Path: strings.Split(name, "."), Expr: quoteGo(name + "-1")})
		}
	}
	for _, name := range v.Exclude {
		if !conflicts(name) {
			v.TestSets = append(v.TestSets, testSet{Path: strings.Split(name, "."), Expr: "attempt"})
		}
	}
	v.TestSets = append(v.TestSets, testSet{Path: strings.Split(changed, "."), Expr: "payload"})
	for _, p := range v.Parts {
		if p.In != rules.LocationBody {
			continue
		}
		expr := quoteGo(p.Part + "-1")
		if p.Part == v.IDPart.Part {
			expr = "id"
		}
		v.TestSets = append(v.TestSets, testSet{Path: pointerTokens(p.Name), Expr: expr})
	}
}

// setPath sets a dotted path in doc, making the objects on the way; a value already in the way
// is replaced, so the last field named wins.
func setPath(doc map[string]any, p, value string) {
	names := strings.Split(p, ".")
	for _, n := range names[:len(names)-1] {
		next, ok := doc[n].(map[string]any)
		if !ok {
			next = map[string]any{}
			doc[n] = next
		}
		doc = next
	}
	doc[names[len(names)-1]] = value
}

// goDuration writes d as a Go constant expression a reader takes in at a glance: 24 * time.Hour,
// 7 * 24 * time.Hour, 30 * time.Second.
func goDuration(d time.Duration) string {
	units := []struct {
		d    time.Duration
		expr string
	}{
		{24 * time.Hour, "24 * time.Hour"}, {time.Hour, "time.Hour"}, {time.Minute, "time.Minute"},
		{time.Second, "time.Second"}, {time.Millisecond, "time.Millisecond"},
	}
	for _, u := range units {
		if d%u.d != 0 {
			continue
		}
		if n := d / u.d; n != 1 {
			return fmt.Sprintf("%d * %s", n, u.expr)
		}
		return u.expr
	}
	return fmt.Sprintf("time.Duration(%d)", int64(d))
}

// retryAfterSeconds is d as whole seconds for a Retry-After header, rounded up and at least one,
// as idemhttp writes it.
func retryAfterSeconds(d time.Duration) string {
	return strconv.FormatInt(max(int64((d+time.Second-1)/time.Second), 1), 10)
}

func quoteGo(s string) string { return strconv.Quote(s) }

// statusExpr names an HTTP status the way net/http does, where it has a name for it.
func statusExpr(code int) string {
	names := map[int]string{200: "StatusOK", 202: "StatusAccepted", 204: "StatusNoContent", 400: "StatusBadRequest",
		409: "StatusConflict", 422: "StatusUnprocessableEntity", 423: "StatusLocked", 425: "StatusTooEarly", 429: "StatusTooManyRequests"}
	if n, ok := names[code]; ok {
		return "http." + n
	}
	return strconv.Itoa(code)
}

// commentText makes spec text safe for a line comment: one line, spaces collapsed.
func commentText(s string) string { return strings.Join(strings.Fields(s), " ") }

// KeeperLogger reports whether the handler's options carry a Logger for
// its Keeper: takeovers of a lapsed lease are logged there, at WARN.
func (v *handlerView) KeeperLogger() bool {
	switch v.Spec.Key.Source {
	case spec.SourceClient, spec.SourceWebhook, spec.SourceQueue:
		return true
	}
	return false
}
