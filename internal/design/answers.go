package design

// Answers are the engineer's answers to the six questions. The YAML answers
// file (--answers) has exactly this shape, and the form binds to its fields.
// Empty answers take the catalogue's defaults in Decide.
type Answers struct {
	Operation   string `yaml:"operation"`
	Description string `yaml:"description,omitempty"`
	// Preset names the common pattern the answers started from (payment,
	// webhook, queue, workflow, cron); informational once the answers exist.
	Preset string `yaml:"preset,omitempty"`
	// Kind is the business kind: payment, billing, email, other.
	Kind  string       `yaml:"kind,omitempty"`
	Key   KeyAnswers   `yaml:"key"`
	Hash  HashAnswers  `yaml:"hash"`
	Store StoreAnswers `yaml:"store"`
	TTL   string       `yaml:"ttl,omitempty"` // "24h", "7d"; empty takes the suggestion
	// Lease answers how long a claim lives while the operation runs.
	Lease      LeaseAnswers     `yaml:"lease,omitempty"`
	Collision  CollisionAnswers `yaml:"collision"`
	Downstream []StepAnswers    `yaml:"downstream,omitempty"`
}

// LeaseAnswers tie the claim's lease to the operation's longest run. A run
// longer than the lease renews it every heartbeat; a holder that stops
// renewing loses the claim to the next attempt.
type LeaseAnswers struct {
	Duration   string `yaml:"duration,omitempty"`    // e.g. 30s; empty takes the catalogue's
	LongestRun string `yaml:"longest_run,omitempty"` // e.g. 40m for a batch, 2m for a consumer
	Heartbeat  string `yaml:"heartbeat,omitempty"`   // e.g. 10s; empty is a third of the lease when the run needs one
}

// KeyAnswers answer Q1.
type KeyAnswers struct {
	// Source is client, webhook, queue, workflow, cron, or server (a key the
	// server makes per attempt, which is rejected).
	Source   string `yaml:"source"`
	Provider string `yaml:"provider,omitempty"` // webhook or queue provider ID from the catalogue
	Header   string `yaml:"header,omitempty"`   // client: the header carrying the key (Idempotency-Key)
	// In and Name say where the key is read when it is not where the
	// catalogue says: header, body (Name a JSON pointer, /event/id),
	// attribute, record or parameter. A client key is a header by default.
	In       string `yaml:"in,omitempty"`
	Name     string `yaml:"name,omitempty"`
	Workflow string `yaml:"workflow,omitempty"` // workflow: the workflow name
	Step     string `yaml:"step,omitempty"`     // workflow: the step name
	Param    string `yaml:"param,omitempty"`    // workflow: the deterministic parameter
	Job      string `yaml:"job,omitempty"`      // cron: the job name
	Schedule string `yaml:"schedule,omitempty"` // cron: slot length, e.g. 1h, 1d, 15m
	// TimeZone is the IANA zone the schedule is written in (cron); slots
	// are floored on its wall clock. UTC when empty.
	TimeZone string `yaml:"time_zone,omitempty"`
	// BusinessDate keys a daily job on the date, in TimeZone, of the slot
	// it was scheduled for, which a late run still carries.
	BusinessDate bool `yaml:"business_date,omitempty"`
	// Format overrides the source's key format template. A format made of a
	// user ID alone is rejected (key-per-user).
	Format string `yaml:"format,omitempty"`
	// Scope is the field the stored key is scoped by (tenant_id); "unscoped"
	// to opt out deliberately.
	Scope string `yaml:"scope,omitempty"`
	// RetriedBy names further catalogue providers whose retries also reach
	// this operation (an internal HTTP retry policy, a load balancer); the
	// TTL must cover the longest window of them all.
	RetriedBy []string `yaml:"retried_by,omitempty"`
	// Window is the longest time over which a retry can arrive when no
	// catalogue provider says it: for a workflow step, the workflow's run
	// timeout, because the engine retries its steps until then.
	Window string `yaml:"window,omitempty"`
	// WindowFrom says where the window's number comes from (the queue's
	// retention setting, the workflow's run timeout), for the spec's TTL
	// justification.
	WindowFrom string `yaml:"window_from,omitempty"`
}

// HashAnswers answer Q2.
type HashAnswers struct {
	Include []string `yaml:"include,omitempty"`
	Exclude []string `yaml:"exclude,omitempty"`
	// Reasons gives the rationale for excluded fields the catalogue does not
	// know; known volatile fields carry the catalogue's reason.
	Reasons map[string]string `yaml:"reasons,omitempty"`
	// DetectMismatch false means "no collision detection for mismatched
	// payloads", which is rejected. Nil means true.
	DetectMismatch *bool `yaml:"detect_mismatch,omitempty"`
}

// StoreAnswers answer Q3.
type StoreAnswers struct {
	Kind string `yaml:"kind,omitempty"` // redis, postgres, dynamodb, workflow, memcached
	// AuditRow asks for a Postgres audit row besides the store; nil means
	// "yes for payment and billing operations".
	AuditRow *bool `yaml:"audit_row,omitempty"`
	// AckFirst says a webhook is acknowledged (2xx) before it is processed,
	// from a queue or an inbox of its own: the payload must be persisted
	// before the acknowledgement, because the sender will not resend it.
	AckFirst bool `yaml:"ack_first,omitempty"`
}

// CollisionAnswers answer Q5 where there is a choice.
type CollisionAnswers struct {
	// InProgress is "conflict" (409 + Retry-After, the default) or "wait"
	// (advisory lock, wait briefly, then 409); queue consumers "requeue".
	InProgress string `yaml:"in_progress,omitempty"`
	// Completed is "replay" (stored response, the default) or "ack" (200
	// without a body, for webhook senders and queues).
	Completed  string `yaml:"completed,omitempty"`
	RetryAfter string `yaml:"retry_after,omitempty"` // e.g. 5s
	// MaxDeliveries is how many deliveries a queue makes before it
	// dead-letters a message (a redrive policy's maxReceiveCount).
	MaxDeliveries int `yaml:"max_deliveries,omitempty"`
	// DeadLetter names the queue failed and mismatched messages go to.
	DeadLetter string `yaml:"dead_letter,omitempty"`
}

// StepAnswers answer Q6 for one downstream side effect.
type StepAnswers struct {
	Name string `yaml:"name"`
	// Target is the system the step calls: a catalogue target ID
	// (stripe-api, sendgrid-mail), whose record says whether it
	// deduplicates, or words for one the catalogue does not know.
	Target    string `yaml:"target,omitempty"`
	Mechanism string `yaml:"mechanism,omitempty"` // provider-key, on-conflict, audit-log, message-id, natural, guard-row, outbox, search-before-create
	// Item is the business identity of one item of a batch or scheduled
	// run (customer_id): each item gets its own key {key}:STEP:{item},
	// with its own claim and release.
	Item string `yaml:"item,omitempty"`
	// BusinessKey lists the fields of the business fact the step records
	// (order_id, reason): its key is STEP:{order_id}:{reason}, the same
	// whichever delivery or run causes it.
	BusinessKey []string `yaml:"business_key,omitempty"`
	// Why says, for a naturally idempotent step, which kind it is (a PUT of
	// the whole resource, an upsert on a business key, a deterministic
	// overwrite, a conditional UPDATE) and so why it needs no key.
	Why string `yaml:"why,omitempty"`
	// Operation names another operation with a spec of its own that this
	// step calls; the spec links it.
	Operation string `yaml:"operation,omitempty"`
}
