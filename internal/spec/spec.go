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
	Downstream []Step      `yaml:"downstream"`
}

// Key is Q1: where the key comes from and what it looks like.
type Key struct {
	Source       string `yaml:"source"`                  // client, webhook, queue, workflow, cron
	Provider     string `yaml:"provider,omitempty"`      // catalogue provider ID for webhook and queue
	ProviderName string `yaml:"provider_name,omitempty"` // its display name
	Field        string `yaml:"field"`                   // where the key is read, e.g. "header Idempotency-Key"
	Format       string `yaml:"format"`                  // e.g. "{workflow_id}:{step}:{param}"
	Example      string `yaml:"example"`
	// Scope is what the stored key is scoped by besides the route, e.g.
	// "tenant_id"; "unscoped" when deliberately global.
	Scope string `yaml:"scope"`
	// Schedule is the cron slot length the scheduled time is floored to.
	Schedule rules.Duration `yaml:"schedule,omitempty"`
	// RetriedBy lists the catalogue providers whose retries reach this
	// operation besides the key's own provider; the TTL covers them all.
	RetriedBy []string `yaml:"retried_by,omitempty"`
	Rationale string   `yaml:"rationale"`
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
}

// TTL is Q4: how long keys are kept, and the retry window that justifies it.
type TTL struct {
	Duration      rules.Duration `yaml:"duration"`
	RetryWindow   rules.Duration `yaml:"retry_window"`
	WindowSource  string         `yaml:"window_source"` // the provider or source whose window is longest
	Justification string         `yaml:"justification"`
	// Lease is how long an in-progress claim lives before another attempt
	// may take it over (a crashed holder); separate from the result TTL.
	Lease rules.Duration `yaml:"lease"`
}

// Collision is one row of Q5's table, as decided for this operation.
type Collision struct {
	Case string `yaml:"case"` // completed, in_progress, mismatch, expired
	// Policy is the answer chosen where the case has a choice: replay or
	// ack for completed; conflict, wait or requeue for in_progress.
	Policy     string         `yaml:"policy,omitempty"`
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
}
