// Package ledger posts double-entry movements between accounts. The HTTP
// handlers call a Service, the Service calls repositories declared here,
// and pgledger implements them on pgx v5 (importing this package), with
// transactions carried in the context by a TxManager.
package ledger

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrDuplicateReference is returned by EntryRepository.Insert when an entry
// with the same reference is already posted (the unique index on
// ledger_entries.reference).
var ErrDuplicateReference = errors.New("ledger: duplicate reference")

// NotFoundError says which record a lookup did not find.
type NotFoundError struct {
	Kind string
	Key  string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("ledger: %s %q not found", e.Kind, e.Key) }

// Entry is one posted movement between two accounts.
type Entry struct {
	ID          string
	Reference   string
	DebitAcct   string
	CreditAcct  string
	AmountMinor int64
	Currency    string
	Status      string
	PostedAt    time.Time
}

// Receipt is what a posting answers.
type Receipt struct {
	EntryID   string `json:"entry_id"`
	Reference string `json:"reference"`
	Status    string `json:"status"`
}

// EntryRepository stores ledger entries.
type EntryRepository interface {
	// FindByReference returns the entry posted under ref, or a
	// *NotFoundError.
	FindByReference(ctx context.Context, ref string) (*Entry, error)
	// ListByReference returns every entry posted under ref.
	ListByReference(ctx context.Context, ref string) ([]Entry, error)
	// StatusOf returns the status of the entry posted under ref, or "" when
	// there is none.
	StatusOf(ctx context.Context, ref string) (string, error)
	// Insert posts e; it returns ErrDuplicateReference when the reference
	// is taken.
	Insert(ctx context.Context, e *Entry) error
}

// TxManager runs fn in one database transaction carried by ctx.
type TxManager interface {
	WithTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// StoredResponse is an answer kept for an idempotency key.
type StoredResponse struct {
	Status string
	Code   int
	Body   []byte
}

// IdempotencyStore keeps the clients' Idempotency-Keys for the posting
// endpoints.
type IdempotencyStore interface {
	// Claim inserts the key as in progress and reports whether this call
	// inserted it.
	Claim(ctx context.Context, key, fingerprint string) (bool, error)
	// Release deletes an in-progress key so that a retry runs again.
	Release(ctx context.Context, key string) error
	// Complete records the answer for the key.
	Complete(ctx context.Context, key string, code int, body []byte) error
	// MarkDone sets the key's status to completed.
	MarkDone(ctx context.Context, key string) error
	// Lookup returns what is stored for the key.
	Lookup(ctx context.Context, key string) (*StoredResponse, error)
}

// Service posts entries.
type Service struct {
	entries EntryRepository
	tx      TxManager
	idem    IdempotencyStore
	clock   func() time.Time
}

// Option configures a Service.
type Option func(*Service)

// WithClock replaces the wall clock, for tests.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.clock = now } }

// WithIdempotency gives the Service a store for client keys.
func WithIdempotency(st IdempotencyStore) Option { return func(s *Service) { s.idem = st } }

// NewService returns a Service over the repositories.
func NewService(entries EntryRepository, tx TxManager, opts ...Option) *Service {
	s := &Service{entries: entries, tx: tx, clock: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// TransferRequest asks to move money between two accounts.
type TransferRequest struct {
	Reference   string `json:"reference"`
	From        string `json:"from"`
	To          string `json:"to"`
	AmountMinor int64  `json:"amount_minor"`
	Currency    string `json:"currency"`
}

func (s *Service) entryFor(req TransferRequest) *Entry {
	return &Entry{
		Reference:   req.Reference,
		DebitAcct:   req.From,
		CreditAcct:  req.To,
		AmountMinor: req.AmountMinor,
		Currency:    req.Currency,
		Status:      "posted",
		PostedAt:    s.clock(),
	}
}

func receiptOf(e *Entry) *Receipt {
	return &Receipt{EntryID: e.ID, Reference: e.Reference, Status: e.Status}
}
