package templates

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

//go:embed spec.md.tmpl
var specTemplate string

// specTmpl is parsed on first use, not when the package initialises: go vet
// starts idemkit once per package, and those processes never render.
var specTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("spec.md.tmpl").Funcs(template.FuncMap{
		"heading":   heading,
		"paragraph": paragraph,
		"inline":    inline,
		"cell":      cell,
		"code":      code,
		"codeCell":  codeCell,
		"link":      linkTarget,
	}).Parse(specTemplate))
})

// RenderSpec writes the spec document for s: its YAML front matter, which
// holds every decision, then the markdown body in the output format of the
// idempotency-keys skill, rendered from the front matter alone. Because the
// body adds nothing, spec.Parse followed by RenderSpec gives back the same
// bytes, and a body that drifted from its front matter is detected by
// rendering again. RenderSpec renders invalid specs too — the self-check at
// the end of the body marks what is missing — so a half-made design can be
// shown before it is fixed.
func RenderSpec(s *spec.Spec) ([]byte, error) {
	if s == nil {
		return nil, errors.New("render spec: no spec")
	}
	front, err := frontMatter(reflect.ValueOf(*s))
	if err != nil {
		return nil, fmt.Errorf("render spec %s: front matter: %w", s.Slug, err)
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(front); err != nil {
		return nil, fmt.Errorf("render spec %s: front matter: %w", s.Slug, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("render spec %s: front matter: %w", s.Slug, err)
	}
	buf.WriteString("---\n")
	if err := specTmpl().Execute(&buf, newSpecView(s)); err != nil {
		return nil, fmt.Errorf("render spec %s: %w", s.Slug, err)
	}
	return buf.Bytes(), nil
}

// frontMatter builds the YAML tree of v from the same field tags yaml.v3
// reads, so that the style of every string can be chosen for a lossless
// round trip: yaml.v3 left to itself writes some strings (one starting with
// a newline, say) in a block style that reads back as a different string,
// and then parse-then-render would not give back the same file. Strings
// that are not UTF-8 are written as !!binary, as yaml.v3 does.
func frontMatter(v reflect.Value) (*yaml.Node, error) {
	if m, ok := v.Interface().(yaml.Marshaler); ok {
		out, err := m.MarshalYAML()
		if err != nil {
			return nil, err
		}
		return frontMatter(reflect.ValueOf(out))
	}
	switch v.Kind() {
	case reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for i := range v.NumField() {
			name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if name == "" || name == "-" || opts == "omitempty" && v.Field(i).IsZero() {
				continue
			}
			value, err := frontMatter(v.Field(i))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, value)
		}
		return n, nil
	case reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if v.Len() == 0 {
			n.Style = yaml.FlowStyle
		}
		for i := range v.Len() {
			item, err := frontMatter(v.Index(i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, item)
		}
		return n, nil
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!binary", Value: base64.StdEncoding.EncodeToString([]byte(s))}, nil
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
		if needsQuotes(s) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case reflect.Int, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	}
	return nil, fmt.Errorf("no YAML form for %s", v.Type())
}

// needsQuotes reports strings that only a double-quoted scalar, with its
// escapes, keeps exactly: line breaks, other control characters, and
// whitespace at either end.
func needsQuotes(s string) bool {
	if strings.TrimSpace(s) != s {
		return true
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\ufeff' {
			return true
		}
	}
	return false
}

// specView is what the template reads: the spec, and the sentences derived
// from it that would be unreadable as template logic. Every string in it is
// already escaped for where it goes.
type specView struct {
	S            *spec.Spec
	Source       string
	WindowSource string
	Payload      string
	Scope        string
	Algorithm    string
	Included     string
	Lease        string
	Collisions   []collisionRow
	Steps        []stepRow
	Diagram      []string
	Tests        []string
	Checks       []string
}

type collisionRow struct {
	Case, When, Answer string
}

type stepRow struct {
	Name, Target, Mechanism, Key, How string
}

func newSpecView(s *spec.Spec) *specView {
	v := &specView{
		S:            s,
		Source:       sourceText(&s.Key),
		WindowSource: windowSource(s),
		Payload:      payloadText(s.Key.Payload),
		Scope:        scopeText(&s.Key),
		Algorithm:    algorithmText(s.Hash.Algorithm),
		Included:     includedText(s.Hash.Include),
		Lease:        leaseText(&s.TTL),
	}
	for _, c := range s.Collisions {
		v.Collisions = append(v.Collisions, collisionRow{Case: codeCell(c.Case), When: cell(c.When), Answer: cell(answer(&c))})
	}
	for _, st := range s.Downstream {
		v.Steps = append(v.Steps, stepRow{
			Name:      cell(st.Name),
			Target:    cell(st.Target),
			Mechanism: mechanismText(st.Mechanism),
			Key:       codeCell(st.Key),
			How:       inline(stepHow(&st)),
		})
	}
	v.Diagram = diagram(s)
	v.Tests = tests(s)
	v.Checks = selfCheck(s)
	return v
}

// leaseText says how long a claim lives and how it is kept alive.
func leaseText(t *spec.TTL) string {
	text := fmt.Sprintf("%s — a claim still in progress after this is taken over by the next attempt with a new fencing token, and the stale holder's complete or release is refused; the lease is separate from the result TTL", t.Lease)
	switch {
	case t.Heartbeat > 0:
		text += fmt.Sprintf(". The longest run is %s, so the holder renews the lease every %s while it works", t.LongestRun, t.Heartbeat)
	case t.LongestRun > 0:
		text += fmt.Sprintf(". The longest run (%s) fits in the lease, so no heartbeat is needed", t.LongestRun)
	default:
		lease := fmt.Sprintf("its %s lease", t.Lease)
		if t.Lease == rules.Default().Defaults.LeaseTTL {
			lease = fmt.Sprintf("the %s lease (idemkit's default)", t.Lease)
		}
		text += fmt.Sprintf(". No longest run was given (lease.longest_run): the design assumes the operation finishes within %s and renews nothing; give the longest run, and one longer than the lease gets a heartbeat", lease)
	}
	return text
}

// stepHow is a step's How, with what makes its key and what the target does
// on its own.
func stepHow(st *spec.Step) string {
	var parts []string
	if st.Item != "" {
		parts = append(parts, "Per item: each "+st.Item+" gets its own key, claim and release, so one failed item neither repeats nor blocks the others.")
	}
	if len(st.BusinessKey) > 0 {
		parts = append(parts, "Business key ("+strings.Join(st.BusinessKey, ", ")+"): the side effect is a business fact, so its key names the fact, not the delivery that caused it.")
	}
	if st.How != "" {
		parts = append(parts, st.How)
	}
	if st.Why != "" {
		parts = append(parts, "No key needed: "+st.Why+".")
	}
	if st.Dedup != "" {
		parts = append(parts, "Target: "+st.Dedup)
	}
	if st.Spec != "" {
		parts = append(parts, "Its own design: ["+st.Spec+"]("+st.Spec+").")
	}
	return strings.Join(parts, " ")
}

// payloadText says what a delivery body that is not JSON means for the key and the handler.
func payloadText(payload string) string {
	switch payload {
	case "":
		return ""
	case rules.PayloadXML:
		return "the body is XML, not JSON: body locations name elements by local name, and idemkit generate handler refuses to write a JSON receiver for it; write the receiver by hand on the generated runtime"
	case rules.PayloadForm:
		return "the body is form fields, not JSON: a key or hash field read from the body needs a receiver written by hand; a key read from a header is generated as usual"
	}
	return "the body is not JSON: " + inline(payload)
}

func sourceText(k *spec.Key) string {
	provider := k.ProviderName
	if provider == "" {
		provider = k.Provider
	}
	provider = inline(provider)
	switch k.Source {
	case spec.SourceClient:
		return "client — the caller makes one key per logical action and sends it again on every retry"
	case spec.SourceWebhook:
		return "webhook — the event ID " + provider + " sends again with every redelivery"
	case spec.SourceQueue:
		return "queue — the message ID " + provider + " keeps across redeliveries"
	case spec.SourceWorkflow:
		return "workflow — the workflow ID, the step name and a deterministic parameter"
	case spec.SourceCron:
		return "cron — the job name and the scheduled time floored to its slot"
	}
	return code(k.Source)
}

// windowSource names whatever has the longest retry window, by the
// provider's display name when it is the key's provider.
func windowSource(s *spec.Spec) string {
	if s.TTL.WindowSource == s.Key.Provider && s.Key.ProviderName != "" {
		return inline(s.Key.ProviderName)
	}
	if strings.TrimSpace(s.TTL.WindowSource) == "" {
		return "an unnamed source"
	}
	if p, ok := rules.Default().Provider(s.TTL.WindowSource); ok && p.Name != "" {
		// A client key's window (ui, internal-http) by the name people know.
		return inline(p.Name)
	}
	return inline(s.TTL.WindowSource)
}

func scopeText(k *spec.Key) string {
	if k.Source == spec.SourceClient {
		scope := "the namespace, " + code(k.Scope) + ", the method and the route, then the client's key — equal keys sent by two tenants or to two routes never collide"
		if k.Scope == "unscoped" {
			scope = "the namespace, the method and the route, then the client's key (no tenant: global on purpose)"
		}
		return scope
	}
	if k.Scope == "unscoped" {
		return "unscoped — the key is global on purpose"
	}
	return code(k.Scope) + " — the stored key is prefixed with it, so equal keys under two of its values never collide"
}

func algorithmText(alg string) string {
	if alg == spec.HashSHA256JCS {
		return "SHA-256 over the RFC 8785 (JCS) canonical JSON of the included fields (`sha256-jcs`)"
	}
	return code(alg)
}

func includedText(fields []string) string {
	if len(fields) == 0 {
		return "the whole body, less the excluded fields"
	}
	spans := make([]string, len(fields))
	for i, f := range fields {
		spans[i] = code(f)
	}
	return strings.Join(spans, ", ")
}

// answer is a collision row's response as one line: the HTTP status and
// Retry-After (in seconds, as the header carries it) where the transport is
// HTTP, then what happens. A response that already starts with its status,
// or a row with no status (a queue, an activity, a scheduled job, whose
// response names its own delay), is shown as written.
func answer(c *spec.Collision) string {
	if c.Status == 0 || strings.HasPrefix(strings.TrimSpace(c.Response), fmt.Sprint(c.Status)) {
		return c.Response
	}
	head := fmt.Sprint(c.Status)
	if c.RetryAfter > 0 && c.Status == 409 {
		head += fmt.Sprintf(" + Retry-After: %d", c.RetryAfter.Seconds())
	}
	if strings.TrimSpace(c.Response) == "" {
		return head
	}
	return head + " — " + c.Response
}

// mechanismText names a step's mechanism by the catalogue's title, the one
// source of the mechanisms' names, with its ID.
func mechanismText(m string) string {
	if mech, ok := rules.Default().Mechanism(m); ok && mech.Title != "" {
		return cell(mech.Title) + " (`" + m + "`)"
	}
	return codeCell(m)
}

// initiator is who sends the request and retries it, as the diagram names
// them.
func initiator(k *spec.Key) string {
	switch k.Source {
	case spec.SourceClient:
		return "Client"
	case spec.SourceWorkflow:
		return "Workflow engine"
	case spec.SourceCron:
		return "Scheduler"
	}
	if k.ProviderName != "" {
		return k.ProviderName
	}
	if k.Provider != "" {
		return k.Provider
	}
	return "Sender"
}

// diagram is the body of the Mermaid sequence diagram: the request claims
// its key, calls each downstream target with the step's derived key, and
// completes with the response; or a failure releases the key; or a key seen
// before gets the collision table's answer. Participants are declared with
// aliases (C, H, S, A, D1...) so that user text only ever appears as a label
// or a message, never as syntax.
func diagram(s *spec.Spec) []string {
	lines := []string{
		"participant C as " + mermaidLabel(initiator(&s.Key), "Sender"),
		"participant H as " + mermaidLabel(s.Operation, "Handler"),
		"participant S as " + mermaidLabel(s.Store.Name, "Store"),
	}
	if s.Store.AuditRow {
		lines = append(lines, "participant A as Postgres audit log")
	}
	targets := map[string]string{}
	for i, st := range s.Downstream {
		label := mermaidLabel(st.Target, mermaidLabel(st.Name, fmt.Sprintf("Step %d", i+1)))
		if _, ok := targets[label]; !ok {
			targets[label] = fmt.Sprintf("D%d", len(targets)+1)
			lines = append(lines, "participant "+targets[label]+" as "+label)
		}
	}
	words := diagramWords[s.Failure.Transport]
	if words == (flowWords{}) {
		words = diagramWords[spec.TransportHTTP]
	}
	if s.Failure.Transport == spec.TransportQueue {
		c := consumerOf(s)
		words.success = "the consumer " + c.Ack
		words.failure = "the consumer " + c.Retry + "; after the last delivery it " + c.DeadLetter
	}
	lines = append(lines,
		"C->>H: "+mermaidText(words.arrive+", key from "+s.Key.Field, words.arrive+" with its key"),
		"H->>S: "+mermaidText(fmt.Sprintf("claim key with fingerprint, lease %s", s.TTL.Lease), "claim key"),
		"alt new key, every step succeeds",
	)
	loop := ""
	for i, st := range s.Downstream {
		label := mermaidLabel(st.Target, mermaidLabel(st.Name, fmt.Sprintf("Step %d", i+1)))
		if st.Item != loop {
			if loop != "" {
				lines = append(lines, "    end")
			}
			if st.Item != "" {
				lines = append(lines, "    loop "+mermaidText("each "+st.Item+": its own claim and release", "each item"))
			}
			loop = st.Item
		}
		indent := "    "
		if loop != "" {
			indent += "    "
		}
		lines = append(lines, indent+"H->>"+targets[label]+": "+mermaidText(st.Name+", key "+st.Key, fmt.Sprintf("step %d", i+1)))
	}
	if loop != "" {
		lines = append(lines, "    end")
	}
	if s.Store.AuditRow {
		lines = append(lines, "    H->>A: write audit row")
	}
	lines = append(lines,
		"    H->>S: "+mermaidText(fmt.Sprintf("complete with the %s, kept %s", words.result, s.TTL.Duration), "complete with the "+words.result),
		"    H-->>C: "+words.success,
		"else "+words.fails,
		"    H->>S: release key",
		"    H-->>C: "+words.failure,
		"else key seen before",
		"    S-->>H: stored state and fingerprint",
		"    H-->>C: the collision table's answer",
		"end",
	)
	return lines
}

// flowWords are the diagram's messages in the transport's terms.
type flowWords struct {
	arrive, result, success, fails, failure string
}

var diagramWords = map[string]flowWords{
	spec.TransportHTTP: {"request", "response", "response", "a step fails, 5xx, panic or timeout", "error, the retry starts over"},
	// A queue's success and failure are its broker's own (consumerOf).
	spec.TransportQueue: {"message", "result", "", "a step fails, panic or timeout", ""},
	spec.TransportActivity: {"activity attempt", "result", "the activity's result",
		"a step fails, panic or timeout", "retryable error (non-retryable for a permanent failure)"},
	spec.TransportSchedule: {"run for the slot", "run's result", "exit 0",
		"a step fails, panic or timeout", "exit non-zero: the retry or the next catch-up run does the slot"},
}

// consumerOf is how this spec's broker is acked, handed back and
// dead-lettered, each cut to its first clause, from the catalogue's
// consumer vocabulary: a Kafka consumer commits an offset where an SQS
// one deletes a message. A broker the catalogue lacks (a team's own) gets
// words that belong to no broker in particular.
func consumerOf(s *spec.Spec) rules.Consumer {
	c := rules.Consumer{Ack: "acknowledges the message", Retry: "hands the message back to be delivered again", DeadLetter: "dead-letters it with the reason"}
	p, ok := rules.Default().Provider(s.Key.Provider)
	if !ok {
		return c
	}
	for _, f := range []struct {
		to   *string
		from string
	}{{&c.Ack, p.Consumer.Ack}, {&c.Retry, p.Consumer.Retry}, {&c.DeadLetter, p.Consumer.DeadLetter}} {
		if clause := firstClause(f.from); clause != "" {
			*f.to = clause
		}
	}
	return c
}

// firstClause is a catalogue phrase up to its first aside, comma or
// semicolon: what the consumer does, without how or why.
func firstClause(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, sep := range []string{" (", ", ", ";"} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return s
}

// collision is the row for one case, or nil when the spec lacks it.
func collision(s *spec.Spec, c string) *spec.Collision {
	for i := range s.Collisions {
		if s.Collisions[i].Case == c {
			return &s.Collisions[i]
		}
	}
	return nil
}

// expected is what a test should observe for a collision case: the row's
// answer, or a note that the row is missing.
func expected(s *spec.Spec, c string) string {
	if row := collision(s, c); row != nil {
		if a := answer(row); strings.TrimSpace(a) != "" {
			return inline(a)
		}
	}
	return "(no " + c + " row in the collision table)"
}

// testWords are the five tests' situations in the transport's own terms.
var testWords = map[string][5]string{
	"http": {
		"the same key and payload after completion",
		"the same key with a different payload",
		"two requests with one key at once → one runs the operation; the other",
		"the same key after the %s TTL",
		"the handler fails or dies after claiming the key",
	},
	"queue": {
		"the same message delivered again after it was processed",
		"the same message ID with a different body",
		"two deliveries of one message at once (the first holder's delivery came back while it worked) → one processes it; the other",
		"the same message ID after the %s TTL",
		"the consumer dies after claiming the key, before it %s",
	},
	"activity": {
		"the engine retries the activity after it completed",
		"the same activity key with different input",
		"two attempts of the activity at once (a heartbeat timed out) → one runs it; the other",
		"the same activity key after the %s TTL",
		"the worker dies mid-activity, after claiming the key",
	},
	"schedule": {
		"the slot fires again after it was done",
		"the slot's key claimed with different parameters",
		"two schedulers fire one slot at once → one runs the job; the other",
		"the same slot after the %s TTL",
		"the job dies after claiming the slot",
	},
}

// tests are the five tests every design names, in the transport's terms,
// with the answers this spec expects.
func tests(s *spec.Spec) []string {
	words, ok := testWords[s.Failure.Transport]
	if !ok {
		words = testWords["http"]
	}
	crash := fmt.Sprintf("the key is released (or its %s lease lapses) and the next retry succeeds, running the operation once", s.TTL.Lease)
	switch s.Failure.Transport {
	case "queue":
		c := consumerOf(s)
		words[4] = fmt.Sprintf(words[4], c.Ack)
		crash = fmt.Sprintf("the broker delivers the message again once the dead consumer's hold on it ends, the %s lease lapses, and the redelivery processes it once; after %d failed deliveries the consumer %s", s.TTL.Lease, s.Failure.MaxDeliveries, c.DeadLetter)
	case "activity":
		crash = fmt.Sprintf("the heartbeat stops, the %s lease lapses, and the engine's retry takes the claim over and runs the activity once", s.TTL.Lease)
	case "schedule":
		crash = fmt.Sprintf("the %s lease lapses and the retry or the next catch-up run of the slot does the work once", s.TTL.Lease)
	}
	if len(s.Downstream) > 0 {
		crash += ", each step deduplicating on its derived key"
	}
	return []string{
		"**Replay**: " + words[0] + " → " + expected(s, spec.CaseCompleted),
		"**Mismatch**: " + words[1] + " → " + expected(s, spec.CaseMismatch),
		"**Concurrent retries**: " + words[2] + " → " + expected(s, spec.CaseInProgress),
		"**TTL expiry**: " + fmt.Sprintf(words[3], s.TTL.Duration) + " → " + expected(s, spec.CaseExpired),
		"**Crash mid-flight**: " + words[4] + " → " + crash,
	}
}

// checkItem is one line of the self-check: the seed's success metric, the
// front-matter fields whose problems fail it, and what to say when it holds.
type checkItem struct {
	title  string
	fields []string // field prefixes
	ok     func(s *spec.Spec) string
}

var checkItems = []checkItem{
	{"Key stable across retries", []string{"key."}, keyStable},
	{"TTL covers every retry window", []string{"ttl.duration", "ttl.retry_window", "ttl.window_source", "ttl.justification"}, func(s *spec.Spec) string {
		return fmt.Sprintf("TTL %s ≥ the %s retry window of %s", s.TTL.Duration, s.TTL.RetryWindow, windowSource(s))
	}},
	{"All collision types handled", []string{"collisions", "hash."}, func(s *spec.Spec) string {
		return "completed, in_progress, mismatch and expired each have one row; the " + code(s.Hash.Algorithm) + " hash tells a mismatch from a retry"
	}},
	{"Every side effect has its own mechanism", []string{"downstream"}, sideEffects},
	{"Tests cover replay, mismatch, concurrency, expiry and crash mid-flight", []string{"collisions"}, func(*spec.Spec) string {
		return "the five tests above take their answers from the collision table"
	}},
	{"No error path leaves a poisoned key", []string{"ttl.lease"}, func(s *spec.Spec) string {
		return fmt.Sprintf("errors, 5xx answers and panics release the key, and a crashed holder's claim lapses after its %s lease", s.TTL.Lease)
	}},
}

func keyStable(s *spec.Spec) string {
	format := code(s.Key.Format)
	switch s.Key.Source {
	case spec.SourceClient:
		return "the client sends the same " + format + " key (" + inline(s.Key.Field) + ") on every retry of one action"
	case spec.SourceCron:
		return format + fmt.Sprintf(" floors the scheduled time to the %s slot, so every run of one slot makes the same key", s.Key.Schedule)
	case spec.SourceWorkflow:
		return format + " is built from the workflow, the step and a deterministic parameter, never from the attempt"
	}
	return format + " is the ID the sender repeats on every redelivery (" + inline(s.Key.Field) + ")"
}

func sideEffects(s *spec.Spec) string {
	if len(s.Downstream) == 0 {
		return "no downstream side effects; the key guards the only write"
	}
	keys := make([]string, len(s.Downstream))
	for i, st := range s.Downstream {
		keys[i] = code(st.Key)
	}
	if len(keys) == 1 {
		return "1 step, with its own mechanism and a key derived from the parent (" + keys[0] + ")"
	}
	return fmt.Sprintf("%d steps, each with its own mechanism and a key derived from the parent (%s)", len(keys), strings.Join(keys, ", "))
}

// selfCheck answers the success metrics from the spec: an item fails with
// the validation problems of its fields. A last item collects the problems
// no metric covers, so that an incomplete spec never reads as all ticks.
func selfCheck(s *spec.Spec) []string {
	problems := s.Problems()
	claimed := make([]bool, len(problems))
	lines := make([]string, 0, len(checkItems)+1)
	for _, item := range checkItems {
		var found []string
		for i, p := range problems {
			if hasAnyPrefix(p.Field, item.fields) {
				claimed[i] = true
				found = append(found, inline(p.Error()))
			}
		}
		if len(found) > 0 {
			lines = append(lines, "❌ "+item.title+": "+strings.Join(found, "; "))
			continue
		}
		lines = append(lines, "✅ "+item.title+": "+item.ok(s))
	}
	var rest []string
	for i, p := range problems {
		if !claimed[i] {
			rest = append(rest, inline(p.Error()))
		}
	}
	if len(rest) > 0 {
		return append(lines, "❌ Front matter complete: "+strings.Join(rest, "; "))
	}
	return append(lines, "✅ Front matter complete: every field validates (`idemkit specs`)")
}

func hasAnyPrefix(field string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(field, p) {
			return true
		}
	}
	return false
}
