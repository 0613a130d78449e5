package idem

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// AuditEntry is the record of one completed operation, kept in an AuditLog beyond the key
// store's TTL: what ran, under which key, with which outcome, when.
type AuditEntry struct {
	// Operation names what ran, such as a spec's slug ("idempotency-charge-card").
	Operation string
	// Key is the operation's idempotency key, the parent of its steps' keys.
	Key string
	// Status is the outcome: an HTTP status for a request, 200 for work that finished.
	Status int
	// At is when the operation completed. Record sets it when it is zero.
	At time.Time
}

// AuditLog keeps one entry per operation and key, for as long as the business keeps its records
// (payments and billing), while the idempotency store forgets keys after their TTL. Recording is
// itself idempotent, so a retry that runs again records nothing new.
type AuditLog interface {
	// Record writes e unless an entry of the same Operation and Key exists, and reports whether it
	// wrote it.
	Record(ctx context.Context, e AuditEntry) (recorded bool, err error)
}

// ErrAuditInvalid: an entry whose Operation or Key no log accepts (see CheckAuditEntry).
var ErrAuditInvalid = errors.New("idem: invalid audit entry")

// CheckAuditEntry rejects an entry no AuditLog accepts: an Operation or a Key that is empty, over
// MaxKeyLen bytes, not UTF-8 or holding a NUL byte, as CheckKey does for keys. Logs call it
// first, so that every backend refuses the same entries, with ErrAuditInvalid.
func CheckAuditEntry(e AuditEntry) error {
	if err := checkText("operation", e.Operation); err != nil {
		return fmt.Errorf("%w: %w", ErrAuditInvalid, err)
	}
	if err := checkText("key", e.Key); err != nil {
		return fmt.Errorf("%w: %w", ErrAuditInvalid, err)
	}
	return nil
}

// MemoryAuditLog is an AuditLog in memory, for tests and a single process that keeps no audit
// trail beyond its lifetime. It is safe for concurrent use.
type MemoryAuditLog struct {
	now     func() time.Time
	mu      sync.Mutex
	entries []AuditEntry
	seen    map[[2]string]bool
}

// NewMemoryAuditLog returns an empty log whose clock is now, or time.Now when now is nil.
func NewMemoryAuditLog(now func() time.Time) *MemoryAuditLog {
	if now == nil {
		now = time.Now
	}
	return &MemoryAuditLog{now: now, seen: map[[2]string]bool{}}
}

// Record implements AuditLog.
func (l *MemoryAuditLog) Record(ctx context.Context, e AuditEntry) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if err := CheckAuditEntry(e); err != nil {
		return false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	id := [2]string{e.Operation, e.Key}
	if l.seen[id] {
		return false, nil
	}
	if e.At.IsZero() {
		e.At = l.now()
	}
	l.seen[id] = true
	l.entries = append(l.entries, e)
	return true, nil
}

// Entries returns the entries recorded so far, oldest first.
func (l *MemoryAuditLog) Entries() []AuditEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}
