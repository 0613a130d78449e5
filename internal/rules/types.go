package rules

// Catalog is the whole body of knowledge idemkit reasons with. It is loaded
// from the embedded YAML files (see Default) and may be extended or overridden
// by a team's .idemkit.yaml (see Override). Every entry has a stable lowercase
// ID that design, audit and the generated specs refer to.
//
// A Catalog from Default is shared: treat it, and the pointers its lookups
// return, as read-only; Override returns a new Catalog instead of changing one.
type Catalog struct {
	// KeySources answers Q1: where an idempotency key comes from.
	KeySources []KeySource `yaml:"key_sources"`
	// Providers are the upstream systems whose retry behaviour bounds the
	// TTL: webhook senders, queues, internal HTTP retries, user-driven retries.
	Providers []Provider `yaml:"providers"`
	// VolatileFields are payload fields that are noise for the canonical
	// hash (Q2), each with the reason it is excluded.
	VolatileFields []VolatileField `yaml:"volatile_fields"`
	// Stores answers Q3.
	Stores []Store `yaml:"stores"`
	// Collisions is the collision table of Q5.
	Collisions []Collision `yaml:"collisions"`
	// Mechanisms are the ways a downstream side effect is made idempotent (Q6).
	Mechanisms []Mechanism `yaml:"mechanisms"`
	// AntiPatterns are the mistakes design rejects and audit finds.
	AntiPatterns []AntiPattern `yaml:"anti_patterns"`
	// Targets are the downstream systems a side effect calls (Q6), each
	// with whether it deduplicates on a key, through what, and for how long.
	Targets []Target `yaml:"targets"`
	// Presets are idemkit's common patterns, as starting answers.
	Presets []Preset `yaml:"presets"`
	// Checks document the audit analyzers: the analyzers' Doc, idemkit
	// rules and the README's rule table all read them from here.
	Checks []Check `yaml:"checks"`
	// Defaults are the answers used when a question is left empty.
	Defaults Defaults `yaml:"defaults"`

	// pos remembers where each entry and field was written, so that an error
	// found after a merge still points at the line that caused it.
	pos map[string]position
	// seq orders the writes recorded in pos: the latest write is the one to
	// blame when two fields disagree.
	seq int
}

// Provider kinds: what kind of system retries. Design asks a different
// question for each (which provider sends the webhook, which queue delivers).
const (
	KindWebhook  = "webhook"  // an HTTP callback sender (Stripe, GitHub, ...)
	KindQueue    = "queue"    // a message broker that redelivers (SQS, Kafka, ...)
	KindInternal = "internal" // our own services' retry policies
	KindUI       = "ui"       // people pressing the button again
	KindWorkflow = "workflow" // a workflow engine that retries its steps (Temporal, Step Functions)
	KindCron     = "cron"     // a scheduler that fires, and may fire again, a job's run
)

// ProviderKinds lists the provider kinds. webhook, queue, workflow and
// cron match the key source of the same name.
func ProviderKinds() []string {
	return []string{KindWebhook, KindQueue, KindWorkflow, KindCron, KindInternal, KindUI}
}

// KeySource is one answer to "who supplies the key?".
type KeySource struct {
	ID          string `yaml:"id"`          // client, webhook, queue, workflow, cron, server
	Title       string `yaml:"title"`       // one line for menus
	Format      string `yaml:"format"`      // key format template, e.g. "{workflow_id}:{step}:{param}"
	Example     string `yaml:"example"`     // an example key value
	Description string `yaml:"description"` // why this source is stable across retries
	// Rejected marks a source that can never be stable across retries (a
	// server-generated per-attempt key); AntiPattern names the reason.
	Rejected    bool   `yaml:"rejected,omitempty"`
	AntiPattern string `yaml:"anti_pattern,omitempty"`
	// DefaultProviders are the providers whose retry windows apply when a
	// design names none (a client key: people and our own retry policies);
	// empty when the design must name one (which webhook sender, which
	// queue).
	DefaultProviders []string `yaml:"default_providers,omitempty"`
}

// Provider is an upstream system that retries or redelivers. Its retry
// window is the number the TTL question (Q4) turns on, so each one carries
// the documentation it came from.
type Provider struct {
	ID     string `yaml:"id"`     // lowercase, e.g. "stripe", "sqs-fifo"
	Name   string `yaml:"name"`   // display name, e.g. "Stripe webhooks"
	Kind   string `yaml:"kind"`   // webhook, queue, workflow, cron, internal, ui
	Source string `yaml:"source"` // the KeySource ID its keys come from
	// KeyField says where the stable key lives: a header or a payload field,
	// e.g. "header X-GitHub-Delivery" or "body id (event.id)".
	KeyField   string `yaml:"key_field"`
	KeyExample string `yaml:"key_example"`
	// Retries is false for a provider that does not retry (its window is then
	// the window of whatever does, e.g. a manual resend).
	Retries bool `yaml:"retries"`
	// RetryWindow is the longest time over which the same delivery can
	// arrive again; SuggestedTTL is what we recommend storing keys for.
	RetryWindow  Duration `yaml:"retry_window"`
	SuggestedTTL Duration `yaml:"suggested_ttl"`
	// Unbounded marks a provider that no clock bounds (a broker that
	// redelivers until acked); RetryWindow is then zero and Bound says what
	// does end a redelivery, so SuggestedTTL is a policy, not a derivation.
	Unbounded bool `yaml:"unbounded,omitempty"`
	// Bound explains what really bounds a redelivery (for queues often a
	// retention period or a visibility timeout, not a retry schedule).
	Bound string `yaml:"bound"`
	// Correction records a number often quoted for this provider (in
	// retry tables, blog posts, earlier idemkit releases) that its own
	// documentation contradicts, and why the documentation wins.
	Correction string `yaml:"correction,omitempty"`
	// Reference is the documentation the numbers came from.
	Reference string `yaml:"reference"`
	// Unverified names any number in this entry that could not be checked
	// against the provider's own documentation, and why; empty when every
	// number was. A spec that relies on one says so.
	Unverified string `yaml:"unverified,omitempty"`

	// Key is where the stable key is read, as structure: design and derive
	// read it instead of parsing KeyField, which stays as the prose for
	// people.
	Key ProviderKey `yaml:"key"`
	// Window says what RetryWindow measures and where the number is written.
	Window WindowSource `yaml:"window"`
	// Exclude lists the delivery metadata that changes between deliveries
	// of the same event (attempt counters, delivery IDs, receipt handles):
	// left out of the canonical hash, or every redelivery is a mismatch.
	Exclude []DeliveryField `yaml:"exclude"`
	// Payload is the format of a delivery's body: json (the default when
	// empty), xml (Salesforce's SOAP outbound messages) or form
	// (application/x-www-form-urlencoded, Twilio). For xml, Key.From's
	// body locations and Key.Items are element paths written like JSON
	// pointers, by local name (/Notification/Id); only a json payload can
	// be read by the generated handlers.
	Payload string `yaml:"payload,omitempty"`
	// PayloadURL is the page that states a payload format other than json.
	PayloadURL string `yaml:"payload_url,omitempty"`
	// Ack is the body a sender expects with the 2xx that acknowledges a
	// delivery (Salesforce's SOAP notificationsResponse); empty when any 2xx will do.
	Ack Ack `yaml:"ack,omitempty"`
	// Busy is what a webhook sender needs to hear, while the first
	// delivery of an event is still being processed, so that it delivers
	// again later; empty when any non-2xx will do (a 409).
	Busy Busy `yaml:"busy,omitempty"`
	// Redelivers says, for a webhook sender that retries but not after an
	// HTTP answer, what follows a failed (5xx) answer, completing "NAME
	// ..." (Twilio retries only a failed connection); empty when the
	// sender retries a 5xx within RetryWindow, or does not retry at all
	// (Retries false).
	Redelivers string `yaml:"redelivers,omitempty"`
	// Consumer is how a queue consumer answers the broker, in the broker's
	// own features: a broker without a per-message nack or visibility
	// timeout (Kafka) names what it has instead.
	Consumer Consumer `yaml:"consumer,omitempty"`
	// Line is the line of the entry in the file it was last loaded from (a
	// team's override when it changed the entry), for messages.
	Line int `yaml:"-"`
}

// Key location kinds: where in a delivery a key (or a part of it) is read.
const (
	LocationHeader    = "header"    // an HTTP header; Name is the header name
	LocationBody      = "body"      // a field of a JSON body; Name is an RFC 6901 JSON pointer
	LocationAttribute = "attribute" // a broker message's attribute, property or record header; Name is its name
	LocationParameter = "parameter" // a workflow or activity parameter (or the engine's run info); Name is the parameter
	LocationRecord    = "record"    // a field the broker or engine assigns to the record (MessageId, offset); Name is it
)

// LocationKinds lists the key location kinds, in the order menus show them.
func LocationKinds() []string {
	return []string{LocationHeader, LocationBody, LocationAttribute, LocationParameter, LocationRecord}
}

// Location is one place a delivery carries a value: kind and name. Part
// names the value in a key format ("{event_id}").
type Location struct {
	Part string `yaml:"part"` // the placeholder this value fills in Format, e.g. event_id
	Kind string `yaml:"kind"` // header, body, attribute, parameter, record
	Name string `yaml:"name"` // header name, JSON pointer (/id), attribute or parameter name
}

// ProviderKey is a provider's stable key as structure: the values it is
// made of, where each is read, and the format that joins them.
type ProviderKey struct {
	// From lists the values the key is made of, in Format's order; most
	// providers have one (an event ID), some two (Adyen: pspReference and
	// eventCode).
	From []Location `yaml:"from"`
	// Format joins From's parts, each written {part}, e.g. "{event_id}" or
	// "{psp_reference}:{event_code}". The key source prefixes the provider
	// or queue to it.
	Format string `yaml:"format"`
	// Batch marks a delivery that carries several events (SendGrid,
	// HubSpot, Adyen, Salesforce): each event is keyed and claimed on its
	// own, and From's body pointers are relative to one event.
	Batch bool `yaml:"batch,omitempty"`
	// Items is the JSON pointer to the array of events in a batch; empty
	// when the body is the array itself.
	Items string `yaml:"items,omitempty"`
	// Scope names what a key is unique within when it is not globally
	// unique (GitHub: a delivery GUID is shared by every hook on the event,
	// so scope it by hook).
	Scope string `yaml:"scope,omitempty"`
}

// Window kinds: what a provider's retry window measures. They differ in
// what a user can change: a sender's schedule is the sender's, a broker's
// retention is the user's queue setting.
const (
	// WindowRetrySchedule is the end of the sender's automatic retries.
	WindowRetrySchedule = "retry-schedule"
	// WindowManualRedelivery is how far back a person or a script can
	// redeliver, for a sender that does not retry by itself (or whose manual
	// resend outlasts its retries).
	WindowManualRedelivery = "manual-redelivery"
	// WindowRetention is a broker's retention of a message that is not
	// acknowledged or deleted: it comes back until then.
	WindowRetention = "retention"
	// WindowTimeout is an engine's timeout within which it retries a step
	// (a workflow's execution timeout, an activity's schedule-to-close).
	WindowTimeout = "timeout"
	// WindowPolicy is a number that is ours to choose (our own retry
	// policy, people pressing the button again): a default, not a fact.
	WindowPolicy = "policy"
)

// WindowKinds lists the window kinds.
func WindowKinds() []string {
	return []string{WindowRetrySchedule, WindowManualRedelivery, WindowRetention, WindowTimeout, WindowPolicy}
}

// WindowSource says what a provider's RetryWindow is and where it is
// written, so a spec's TTL justification can name both.
type WindowSource struct {
	Kind string `yaml:"kind"` // retry-schedule, manual-redelivery, retention, timeout, policy
	// Is says in one line what the number is, e.g. "Stripe's live-mode
	// retries end after 3 days" or "the maximum message retention period".
	Is string `yaml:"is"`
	// Configurable is true when the user sets the number (a queue's
	// retention, a workflow's timeout): the catalogue's value is the
	// default or the maximum, and the spec should carry the user's own.
	Configurable bool `yaml:"configurable,omitempty"`
	// URL is the page that states the number; it defaults to the
	// provider's Reference.
	URL string `yaml:"url,omitempty"`
}

// Payload formats: what a provider's delivery body is written in.
const (
	PayloadJSON = "json" // a JSON document; the default
	PayloadXML  = "xml"  // an XML document, e.g. a SOAP envelope
	PayloadForm = "form" // application/x-www-form-urlencoded fields
)

// PayloadFormats lists the payload formats.
func PayloadFormats() []string { return []string{PayloadJSON, PayloadXML, PayloadForm} }

// PayloadOf is p's payload format, json when the entry names none.
func PayloadOf(p *Provider) string {
	if p.Payload == "" {
		return PayloadJSON
	}
	return p.Payload
}

// Ack is the acknowledgement a sender expects, and the page that says so.
type Ack struct {
	// Body is the exact response body, one line of printable ASCII.
	Body string `yaml:"body"`
	// ContentType is the media type the body is sent with, e.g. text/xml.
	ContentType string `yaml:"content_type,omitempty"`
	// URL is the documentation that asks for it.
	URL string `yaml:"url"`
}

// Busy is the answer a webhook sender retries after: the status, and
// what the sender does with it.
type Busy struct {
	Status int    `yaml:"status"` // e.g. 503 for a sender that retries only 5xx
	Says   string `yaml:"says"`   // what the sender does on it, from its docs
	URL    string `yaml:"url"`    // the page that says which answers it retries
}

// Consumer is a broker's vocabulary for the four things a consumer does
// with a delivery, each a phrase that completes "the consumer ...".
type Consumer struct {
	// Ack acknowledges a processed delivery so the broker stops
	// delivering it, e.g. "deletes the message (DeleteMessage)".
	Ack string `yaml:"ack"`
	// Later hands a delivery back to come again after a delay, e.g.
	// "sets its visibility timeout to the delay (ChangeMessageVisibility)".
	Later string `yaml:"later"`
	// Delay is true when the consumer chooses how long Later waits (a
	// visibility timeout, a nak delay); false when the broker's own
	// backoff does (a push delivery answered 503).
	Delay bool `yaml:"delay,omitempty"`
	// Extend keeps the holder's own delivery from coming back while it
	// works; empty when the broker has no such thing.
	Extend string `yaml:"extend,omitempty"`
	// DeadLetter moves a delivery aside for good, with the reason.
	DeadLetter string `yaml:"dead_letter"`
	// Retry has a failed delivery come again.
	Retry string `yaml:"retry"`
	// URL is the documentation of these features.
	URL string `yaml:"url"`
}

// DeliveryField is delivery metadata that differs between two deliveries
// of the same event and so is excluded from the canonical hash.
type DeliveryField struct {
	Kind   string `yaml:"kind"`   // header, body, attribute, record
	Name   string `yaml:"name"`   // as in Location
	Reason string `yaml:"reason"` // why it changes between deliveries
}

// Dedup kinds: what a downstream target does with a repeated call.
const (
	// DedupKey is a target that accepts an idempotency key and performs a
	// call once per key within its retention; Target.Repeat says what a
	// repeat gets back.
	DedupKey = "key"
	// DedupNatural is a target whose operation is idempotent by itself
	// (PUT to a named resource, an upsert on a unique ID you choose).
	DedupNatural = "natural"
	// DedupNone is a target that performs every call it receives.
	DedupNone = "none"
)

// Repeat answers: what a target that deduplicates on a key answers a
// repeated call with a key it still remembers. The handler's code differs
// with each, so a spec says which, and a design leaves it unsaid rather
// than guess.
const (
	// RepeatFirstResult replays the first call's result: its status and
	// body, or the resource it made (Stripe, Adyen, Resend).
	RepeatFirstResult = "first-result"
	// RepeatCurrentState returns the resource the first call made in its
	// state now, not as the first answer had it (PayPal: the latest status
	// of the first request).
	RepeatCurrentState = "current-state"
	// RepeatConflict refuses the repeat with 409 Conflict: the first call
	// was done, and the caller must treat the conflict as "already done"
	// and look the result up, not fail (GoCardless, Mercury).
	RepeatConflict = "conflict"
	// RepeatAccepted accepts the repeat as a success and drops it: a
	// producer's deduplicated send is acknowledged and not delivered again
	// (SQS FIFO, NATS JetStream).
	RepeatAccepted = "accepted"
)

// RepeatAnswers lists the repeat answers.
func RepeatAnswers() []string {
	return []string{RepeatFirstResult, RepeatCurrentState, RepeatConflict, RepeatAccepted}
}

// Target is a downstream system a side effect calls. Whether it
// deduplicates decides the mechanism: a key it honours (provider-key), or
// a guard of our own because it has none.
type Target struct {
	ID   string `yaml:"id"`   // e.g. "stripe-api", "sendgrid-mail"
	Name string `yaml:"name"` // e.g. "Stripe API (POST requests)"
	// Dedup is key, natural or none.
	Dedup string `yaml:"dedup"`
	// Via is where the key is sent when Dedup is key (header
	// Idempotency-Key, body field /client_token), or the value the target
	// is idempotent on when Dedup is natural.
	Via Location `yaml:"via"`
	// Remembers is how long the target keeps a key; zero with Dedup key
	// means its documentation does not say (RemembersNote then says so).
	Remembers Duration `yaml:"remembers,omitempty"`
	// RemembersNote says what the documentation says about retention, in
	// words, especially when it gives no number.
	RemembersNote string `yaml:"remembers_note,omitempty"`
	// Repeat is what a dedup key target answers a repeated call (see the
	// Repeat answers); empty when the documentation read does not say,
	// and then the spec's advice does not say either.
	Repeat string `yaml:"repeat,omitempty"`
	// Mechanism is the catalogue mechanism that fits this target.
	Mechanism string `yaml:"mechanism"`
	// Note is what an engineer must know beyond the numbers.
	Note string `yaml:"note"`
	// Reference is the documentation the facts came from.
	Reference string `yaml:"reference"`
	// Unverified names any fact here that could not be checked against the
	// target's own documentation; empty when every one was.
	Unverified string `yaml:"unverified,omitempty"`
	// Line is the line of the entry in the file it was last loaded from.
	Line int `yaml:"-"`
}

// VolatileField is a payload field excluded from the canonical hash: one
// that differs between two attempts of the same logical request.
type VolatileField struct {
	Name   string `yaml:"name"`   // e.g. "timestamp"
	Reason string `yaml:"reason"` // why it is noise
}

// Store is one answer to "where do you store keys?", with the TTLs it can
// hold in practice so design can tell when a TTL and a store do not fit.
type Store struct {
	ID       string   `yaml:"id"` // redis, postgres, dynamodb, workflow, memcached
	Name     string   `yaml:"name"`
	TTLMin   Duration `yaml:"ttl_min"`   // practical TTL range; zero when not a TTL at all
	TTLMax   Duration `yaml:"ttl_max"`   // zero means no practical upper bound
	TTLRange string   `yaml:"ttl_range"` // the range in words for tables, e.g. "hours to days"
	// Primitive is the one atomic write that claims a key, e.g.
	// "SET key value NX EX ttl"; a store without one invites check-then-act.
	Primitive   string `yaml:"primitive"`
	When        string `yaml:"when"` // when to pick it
	Rejected    bool   `yaml:"rejected,omitempty"`
	AntiPattern string `yaml:"anti_pattern,omitempty"`
}

// Collision is one row of the collision table: what a second request with
// a key already seen means, and what it gets back.
type Collision struct {
	ID       string `yaml:"id"` // completed, in_progress, mismatch, expired
	Case     string `yaml:"case"`
	Meaning  string `yaml:"meaning"`
	Response string `yaml:"response"`
	Status   int    `yaml:"status,omitempty"` // HTTP status, 0 when not HTTP-specific
	// Answers are the ways a design may answer this case, each for the key
	// sources it fits: an HTTP client gets a status code, a queue consumer
	// acks, nacks or dead-letters, a workflow step returns or fails, a job
	// skips or exits. For each source the first answer that fits it is the
	// default.
	Answers []CollisionAnswer `yaml:"answers"`
	// BySource is the case in a key source's own words where Case does
	// not fit it (a scheduled run has parameters, not a payload).
	BySource map[string]string `yaml:"by_source,omitempty"`
}

// CollisionAnswer is one way to answer a collision case, in the terms of
// the transports it fits.
type CollisionAnswer struct {
	ID       string   `yaml:"id"`               // e.g. replay, ack, requeue, dead-letter
	Title    string   `yaml:"title"`            // one line for menus
	Sources  []string `yaml:"sources"`          // the key sources it fits: client, webhook, queue, workflow, cron
	Response string   `yaml:"response"`         // what the consumer does or answers, in its transport's terms
	Status   int      `yaml:"status,omitempty"` // the HTTP status, when it answers over HTTP
	// BySource is Response in one source's own terms, for an answer that
	// fits sources of more than one transport.
	BySource map[string]string `yaml:"by_source,omitempty"`
}

// Mechanism is a way to make one downstream side effect idempotent: the
// entrypoint's key only stops duplicate entries, each side effect needs its
// own.
type Mechanism struct {
	ID    string `yaml:"id"` // provider-key, on-conflict, audit-log, message-id, ...
	Title string `yaml:"title"`
	How   string `yaml:"how"`
	// TargetDedup is the Dedup a target needs for this mechanism to work
	// (key for provider-key: the target must honour the key); empty when
	// the mechanism is ours alone and fits any target.
	TargetDedup string `yaml:"target_dedup,omitempty"`
	// Use says, for generated code's comments, what the work does with a
	// step's key; %s is where the target's name goes.
	Use string `yaml:"use,omitempty"`
}

// AntiPattern is a mistake with a stable ID shared by design and audit.
type AntiPattern struct {
	ID    string `yaml:"id"` // e.g. "per-attempt-key"
	Title string `yaml:"title"`
	Why   string `yaml:"why"`
	Fix   string `yaml:"fix"`
}

// Preset is a named starting point for the design form (idemkit's common
// patterns). Answers is kept as raw YAML so that rules does not
// depend on the design package; design decodes it into its Answers.
type Preset struct {
	ID          string         `yaml:"id"` // payment, webhook, queue, workflow, cron
	Title       string         `yaml:"title"`
	Description string         `yaml:"description"`
	Answers     map[string]any `yaml:"answers"`
}

// Defaults are used where an answer is left empty.
type Defaults struct {
	Store      string   `yaml:"store"`       // redis
	TTL        Duration `yaml:"ttl"`         // 24h
	LeaseTTL   Duration `yaml:"lease_ttl"`   // how long an in-progress claim lives
	RetryAfter Duration `yaml:"retry_after"` // Retry-After on a 409
	// AuditRowFor lists operation kinds (payment, billing) that also get a
	// Postgres audit row whatever the store.
	AuditRowFor []string `yaml:"audit_row_for"`
}

// Check documents one audit analyzer. ID is the analyzer's name, fixed by
// contract: it is the key of go vet -json output and of //idemkit:ignore.
type Check struct {
	ID          string `yaml:"id"`           // checkthenact, attemptkey, releaseonerror, cacheresponse
	Title       string `yaml:"title"`        // one line: what it finds
	AntiPattern string `yaml:"anti_pattern"` // the anti-pattern it finds in code
	Why         string `yaml:"why"`          // why it matters, a paragraph
	Bad         string `yaml:"bad"`          // a Go example it reports
	Good        string `yaml:"good"`         // the same code done right
	Fix         string `yaml:"fix"`          // what to do instead, one or two sentences
}
