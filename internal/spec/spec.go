// Package spec is the machine-readable form of an idempotency design: the
// YAML front matter of knowledge/projects/idempotency-<slug>.md. The front
// matter holds every decision, so the markdown body can be rendered from it
// alone (templates.RenderSpec) and parse-then-render gives back the same file.
package spec

import "github.com/idemkit/idemkit/internal/rules"

// SchemaVersion is the front-matter schema this idemkit writes and reads.
// A spec with a higher schema was written by a newer idemkit.
const SchemaVersion = 1

// PatternsLink is where every spec points for the patterns it follows,
// relative to knowledge/projects/.
const PatternsLink = "../patterns/idempotency-patterns.md"

// Spec is one operation's idempotency design.
type Spec struct {
	Schema      int    `yaml:"schema"`
	Idemkit     string `yaml:"idemkit"` // version of idemkit that wrote the spec
	Operation   string `yaml:"operation"`
	Slug        string `yaml:"slug"`
	Description string `yaml:"description"`
	Preset      string `yaml:"preset,omitempty"` // payment, webhook, queue, workflow, cron
	// Kind is the business kind of the operation (payment, billing, email,
	// other); payment and billing get a Postgres audit row.
	Kind       string      `yaml:"kind,omitempty"`
	Patterns   string      `yaml:"patterns"`
	Key        Key         `yaml:"key"`
	Hash       Hash        `yaml:"hash"`
	Store      Store       `yaml:"store"`
	TTL        TTL         `yaml:"ttl"`
	Collisions []Collision `yaml:"collisions"`
	// Failure is what a failed attempt answers, in the transport's terms
	// (a 5xx, a nack and a dead-letter queue, a retryable activity error,
	// a non-zero exit), so that a failure is retried and never stored.
	Failure    Failure `yaml:"failure,omitempty"`
	Downstream []Step  `yaml:"downstream"`
}

// Key is Q1: where the key comes from and what it looks like.
type Key struct {
	Source       string `yaml:"source"`                  // client, webhook, queue, workflow, cron
	Provider     string `yaml:"provider,omitempty"`      // catalogue provider ID for webhook and queue
	ProviderName string `yaml:"provider_name,omitempty"` // its display name
	Field        string `yaml:"field"`                   // where the key is read, e.g. "header Idempotency-Key"
	// In and Name are Field as data: where the key is read (header, body,
	// attribute, metadata, parameter, schedule) and its name there (a
	// header name, a JSON pointer into the body, an attribute name).
	In   string `yaml:"in,omitempty"`
	Name string `yaml:"name,omitempty"`
	// Parts are the values the key is made of, in Format's order, each
	// with where a delivery carries it (Adyen: pspReference and eventCode).
	// In and Name then repeat the first part's location. Empty in specs
	// written before parts were recorded: In and Name are then the one
	// value's location.
	Parts []KeyPart `yaml:"parts,omitempty"`
	// Batch marks a delivery that carries several events (Adyen's
	// notificationItems, SendGrid's array): each event is keyed, claimed,
	// completed or released on its own, so one that fails neither repeats
	// nor blocks the others. Items is the JSON pointer of their array in the
	// body; empty when the body is the array itself. The body pointers of
	// Parts, and the hash's fields, are then relative to one event.
	Batch bool   `yaml:"batch,omitempty"`
	Items string `yaml:"items,omitempty"`
	// Ack is the body the provider expects with the 2xx that acknowledges a
	// delivery (Salesforce: a SOAP notificationsResponse with Ack true); empty when any 2xx will do.
	Ack string `yaml:"ack,omitempty"`
	// Payload is the format of a delivery's body when it is not JSON: xml
	// (a SOAP envelope, Salesforce) or form (form fields, Twilio). Body
	// locations are then element paths or field names, which the generated
	// handlers cannot read; empty means JSON.
	Payload string `yaml:"payload,omitempty"`
	// Missing is what a request without a key gets (a client key: 400).
	Missing string `yaml:"missing,omitempty"`
	Format  string `yaml:"format"` // e.g. "{workflow_id}:{step}:{param}"
	Example string `yaml:"example"`
	// Scope is what the stored key is scoped by besides the route, e.g.
	// "tenant_id"; "unscoped" when deliberately global.
	Scope string `yaml:"scope"`
	// Schedule is the cron slot length the scheduled time is floored to.
	Schedule rules.Duration `yaml:"schedule,omitempty"`
	// Workflow and Step name a workflow step key's parts, and Job a
	// scheduled key's, as data (Format carries them as text).
	Workflow string `yaml:"workflow,omitempty"`
	Step     string `yaml:"step,omitempty"`
	Job      string `yaml:"job,omitempty"`
	// TimeZone is the IANA zone a scheduled key's slot is computed in, and
	// BusinessDate says the key carries the job's business date in that
	// zone rather than the instant it fired.
	TimeZone     string `yaml:"time_zone,omitempty"`
	BusinessDate bool   `yaml:"business_date,omitempty"`
	// RetriedBy lists the catalogue providers whose retries reach this
	// operation besides the key's own provider; the TTL covers them all.
	RetriedBy []string `yaml:"retried_by,omitempty"`
	Rationale string   `yaml:"rationale"`
}

// KeyPart is one value a key is made of and where it is read: a header,
// a JSON pointer into the body (into one event of a batch), a broker
// record's attribute or field.
type KeyPart struct {
	Part string `yaml:"part"` // its placeholder in Key.Format, e.g. psp_reference
	In   string `yaml:"in"`   // header, body, attribute, record, parameter
	Name string `yaml:"name"` // header name, JSON pointer (/pspReference), attribute or field name
}

// Hash is Q2: the canonical request hash.
type Hash struct {
	Algorithm string   `yaml:"algorithm"` // "sha256-jcs": SHA-256 over RFC 8785 canonical JSON
	Include   []string `yaml:"include"`
	Exclude   []Field  `yaml:"exclude"`
}

// Field is a payload field with the reason it was excluded from the hash.
type Field struct {
	Name   string `yaml:"name"`
	Reason string `yaml:"reason"`
}

// Store is Q3: where the keys live.
type Store struct {
	Kind      string `yaml:"kind"` // redis, postgres, dynamodb, workflow
	Name      string `yaml:"name"`
	Primitive string `yaml:"primitive"`
	// AuditRow is true when a Postgres audit row is written as well, as for
	// payment and billing operations.
	AuditRow  bool   `yaml:"audit_row"`
	Rationale string `yaml:"rationale"`
	// AckFirst is true when a webhook is acknowledged before it is
	// processed, so its payload is persisted first.
	AckFirst bool `yaml:"ack_first,omitempty"`
	// Implies lists what the choice commits the code to: the claim in the
	// business write's transaction, the payload persisted before a webhook
	// is acknowledged, the offset committed after the database commit.
	Implies []string `yaml:"implies,omitempty"`
}

// TTL is Q4: how long keys are kept, and the retry window that justifies it.
type TTL struct {
	Duration      rules.Duration `yaml:"duration"`
	RetryWindow   rules.Duration `yaml:"retry_window"`
	WindowSource  string         `yaml:"window_source"` // the provider or source whose window is longest
	Justification string         `yaml:"justification"`
	// WindowReference is where the retry window's number comes from: the
	// provider's documentation URL, or what the answers said.
	WindowReference string `yaml:"window_reference,omitempty"`
	// Lease is how long an in-progress claim lives before another attempt
	// may take it over (a crashed holder); separate from the result TTL.
	Lease rules.Duration `yaml:"lease"`
	// LongestRun is the longest the operation runs while holding its claim;
	// a run longer than the lease renews it every Heartbeat.
	LongestRun rules.Duration `yaml:"longest_run,omitempty"`
	Heartbeat  rules.Duration `yaml:"heartbeat,omitempty"`
	// LeaseLost says what happens when a holder outlives its lease.
	LeaseLost string `yaml:"lease_lost,omitempty"`
}

// Collision is one row of Q5's table, as decided for this operation.
type Collision struct {
	Case string `yaml:"case"` // completed, in_progress, mismatch, expired
	// Policy is the answer chosen where the case has a choice: replay, ack
	// or skip for completed; conflict, wait, requeue, retry or skip for
	// in_progress.
	Policy string `yaml:"policy,omitempty"`
	// Action is the catalogue's answer to the row in the transport's own
	// terms: replay, ack, skip, conflict, wait, requeue, retry, reject,
	// dead-letter, non-retryable, fail, process.
	Action     string         `yaml:"action,omitempty"`
	When       string         `yaml:"when"` // "Same key, same hash, completed"
	Response   string         `yaml:"response"`
	Status     int            `yaml:"status,omitempty"`
	RetryAfter rules.Duration `yaml:"retry_after,omitempty"`
}

// Step is Q6: one downstream side effect and its own idempotency mechanism.
type Step struct {
	Name      string `yaml:"name"`      // "charge"
	Target    string `yaml:"target"`    // "Stripe", "orders table"
	Mechanism string `yaml:"mechanism"` // provider-key, on-conflict, audit-log, message-id
	Key       string `yaml:"key"`       // derived key, e.g. "{key}:charge"
	How       string `yaml:"how"`
	// Item is the business identity of one item of a batch or scheduled
	// run (customer_id): each item gets its own key, claim and release.
	Item string `yaml:"item,omitempty"`
	// BusinessKey lists the fields of the business fact the side effect
	// records (order_id, reason); its key is made of them, not of the
	// delivery that caused it.
	BusinessKey []string `yaml:"business_key,omitempty"`
	// Why says why a naturally idempotent step needs no key.
	Why string `yaml:"why,omitempty"`
	// Dedup is what the target itself does with a repeated call, from the
	// catalogue's record of it; empty when the target is not known.
	Dedup string `yaml:"dedup,omitempty"`
	// Repeat is what the target answers a repeated call with a key it
	// still keeps, from the catalogue (rules.RepeatAnswers): first-result,
	// current-state, conflict (409: already done, look the result up) or
	// accepted. Empty when the target is not known or its documentation
	// does not say. Optional, so a spec written before the field reads
	// the same.
	Repeat string `yaml:"repeat,omitempty"`
	// Spec links the spec of the operation this step calls, when that
	// operation has its own (idempotency-<slug>.md in the same directory).
	Spec string `yaml:"spec,omitempty"`
}

// Failure is what a failed attempt of the operation answers, in its
// transport's terms, and what bounds its redeliveries.
type Failure struct {
	Transport string `yaml:"transport"` // http, queue, activity, schedule
	Answer    string `yaml:"answer"`
	// MaxDeliveries is how many deliveries a queue makes before it moves
	// the message to DeadLetter with the reason.
	MaxDeliveries int    `yaml:"max_deliveries,omitempty"`
	DeadLetter    string `yaml:"dead_letter,omitempty"`
}
