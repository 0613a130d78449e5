package spec

import (
	"path"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

// validSpec is a complete client-keyed payment design with three downstream
// steps; tests break one thing at a time.
func validSpec() *Spec {
	return &Spec{
		Schema:      SchemaVersion,
		Idemkit:     "v0.1.0",
		Operation:   "Charge card",
		Slug:        "charge-card",
		Description: "Charges the customer's card for an order.",
		Preset:      "payment",
		Kind:        "payment",
		Patterns:    PatternsLink,
		Key: Key{
			Source:    SourceClient,
			Field:     "header Idempotency-Key",
			Format:    "{uuid}",
			Example:   "8e03978e-40d5-43e8-bc93-6894a57f9324",
			Scope:     "tenant_id",
			Rationale: "The client makes one UUID per press of Pay and resends it on every retry.",
		},
		Hash: Hash{
			Algorithm: HashSHA256JCS,
			Include:   []string{"customer_id", "amount", "currency"},
			Exclude:   []Field{{Name: "timestamp", Reason: "differs on every attempt"}},
		},
		Store: Store{
			Kind:      "redis",
			Name:      "Redis",
			Primitive: "SET key value NX PX lease",
			AuditRow:  true,
			Rationale: "Sub-millisecond claims; the Postgres audit row keeps the record.",
		},
		TTL: TTL{
			Duration:      rules.MustDuration("24h"),
			RetryWindow:   rules.MustDuration("5m"),
			WindowSource:  "internal HTTP retry policy",
			Justification: "covers the client's retries with room for a page reload",
			Lease:         rules.MustDuration("30s"),
		},
		Collisions: []Collision{
			{Case: CaseCompleted, When: "Same key, same hash, completed", Response: "Replay the stored response", Status: 200},
			{Case: CaseInProgress, When: "Same key, same hash, in progress", Response: "Conflict; retry later", Status: 409, RetryAfter: rules.MustDuration("5s")},
			{Case: CaseMismatch, When: "Same key, different hash", Response: "Reject and log loudly", Status: 422},
			{Case: CaseExpired, When: "Same key, TTL expired", Response: "Treat as a new request"},
		},
		Downstream: []Step{
			{Name: "charge", Target: "Stripe", Mechanism: MechanismProviderKey, Key: "{key}:charge", How: "Idempotency-Key header"},
			{Name: "order", Target: "orders table", Mechanism: MechanismOnConflict, Key: "{key}:order", How: "INSERT ... ON CONFLICT DO NOTHING"},
			{Name: "email", Target: "SendGrid", Mechanism: MechanismMessageID, Key: "{key}:email"},
		},
	}
}

// validFile is validSpec as a spec file, written by hand the way a person
// editing one would see it.
const validFile = `---
schema: 1
idemkit: v0.1.0
operation: Charge card
slug: charge-card
description: Charges the customer's card for an order.
preset: payment
kind: payment
patterns: ../patterns/idempotency-patterns.md
key:
  source: client
  field: header Idempotency-Key
  format: '{uuid}'
  example: 8e03978e-40d5-43e8-bc93-6894a57f9324
  scope: tenant_id
  rationale: The client makes one UUID per press of Pay and resends it on every retry.
hash:
  algorithm: sha256-jcs
  include:
    - customer_id
    - amount
    - currency
  exclude:
    - name: timestamp
      reason: differs on every attempt
store:
  kind: redis
  name: Redis
  primitive: SET key value NX PX lease
  audit_row: true
  rationale: Sub-millisecond claims; the Postgres audit row keeps the record.
ttl:
  duration: 1d
  retry_window: 5m
  window_source: internal HTTP retry policy
  justification: covers the client's retries with room for a page reload
  lease: 30s
collisions:
  - case: completed
    when: Same key, same hash, completed
    response: Replay the stored response
    status: 200
  - case: in_progress
    when: Same key, same hash, in progress
    response: Conflict; retry later
    status: 409
    retry_after: 5s
  - case: mismatch
    when: Same key, different hash
    response: Reject and log loudly
    status: 422
  - case: expired
    when: Same key, TTL expired
    response: Treat as a new request
downstream:
  - name: charge
    target: Stripe
    mechanism: provider-key
    key: '{key}:charge'
    how: Idempotency-Key header
  - name: order
    target: orders table
    mechanism: on-conflict
    key: '{key}:order'
    how: INSERT ... ON CONFLICT DO NOTHING
  - name: email
    target: SendGrid
    mechanism: message-id
    key: '{key}:email'
---
# Idempotency Design: Charge card

The body is rendered from the front matter and ignored by Parse.
`

// TestPatternsLinkResolves checks that the link every spec carries, read
// from where specs are written (knowledge/projects/), reaches the patterns
// page the design command writes (knowledge/patterns/).
func TestPatternsLinkResolves(t *testing.T) {
	t.Parallel()
	if got := path.Join("knowledge/projects", PatternsLink); got != "knowledge/patterns/idempotency-patterns.md" {
		t.Errorf("%s from knowledge/projects/ is %s, want knowledge/patterns/idempotency-patterns.md", PatternsLink, got)
	}
}
