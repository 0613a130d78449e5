package idem

import (
	"context"
	"errors"
	"fmt"
	"time"
)

var (
	// ErrLeaseLost: the token no longer holds the key — its lease was taken over, the record was
	// completed, released or expired. The write was refused and nothing changed.
	ErrLeaseLost = errors.New("idem: lease lost")
	// ErrFingerprintMismatch: the key is in use for a different request. See MismatchError.
	ErrFingerprintMismatch = errors.New("idem: fingerprint mismatch")
	// ErrInProgress: another holder is working on the key. See InProgressError.
	ErrInProgress = errors.New("idem: in progress")
	// ErrStoreUnavailable: the store could not answer, so nothing is known about the key and the
	// work must not run (fail closed). Stores wrap their backend's error with it.
	ErrStoreUnavailable = errors.New("idem: store unavailable")
	// ErrStoreFull: the memory store is full of live records. Evicting one would let its key run
	// twice or lose its replay, so the store refuses new claims instead. The error it comes in
	// names the bound reached (MemoryOptions.MaxEntries or MaxBytes).
	ErrStoreFull = fmt.Errorf("%w: memory store full of live records", ErrStoreUnavailable)
	// ErrNotReleased: work that did not finish could not give its key back. Until the key's lease
	// runs out, a retry finds it in progress (409) rather than running at once.
	ErrNotReleased = errors.New("idem: key not released")
	// ErrNotFound: Get found no live record.
	ErrNotFound = errors.New("idem: no record")
	// ErrInvalid: an argument no store accepts (empty key, a lease under a millisecond, ...).
	ErrInvalid = errors.New("idem: invalid argument")
)

// InProgressError reports a live lease held by someone else; it matches ErrInProgress.
type InProgressError struct {
	Key string
	// RetryAfter is what remains of the holder's lease: the earliest a retry can take over if the
	// holder has died.
	RetryAfter time.Duration
}

func (e *InProgressError) Error() string {
	return fmt.Sprintf("idem: key %q in progress, retry after %v", e.Key, e.RetryAfter)
}

func (e *InProgressError) Is(target error) bool { return target == ErrInProgress }

// MismatchError reports a key reused with a different fingerprint; it matches
// ErrFingerprintMismatch. It names both fingerprints so the log shows which request was first.
type MismatchError struct {
	Key    string
	Stored string
	Got    string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("idem: key %q was used for fingerprint %s, not %s", e.Key, e.Stored, e.Got)
}

func (e *MismatchError) Is(target error) bool { return target == ErrFingerprintMismatch }

// Unavailable wraps a backend error from operation op with ErrStoreUnavailable, keeping the cause.
// When ctx itself is done the cause is the caller's cancellation, not the store's health, so the
// error is wrapped without ErrStoreUnavailable.
func Unavailable(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return fmt.Errorf("%s: %w: %w", op, ErrStoreUnavailable, err)
}
