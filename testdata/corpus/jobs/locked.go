package jobs

import (
	"context"
	"fmt"
	"time"

	"example.com/corpus/cache"
)

// Archiver moves closed orders older than a year to cold storage, on one
// replica at a time.
type Archiver struct {
	locker  *cache.Locker
	archive func(ctx context.Context, before time.Time) (int, error)
	vacuum  func(ctx context.Context) error
}

// Archive takes the job lock through cache.Locker and calls the unlock it got
// back at the end. When archiving fails it returns before that call, and the
// lock blocks every replica until it expires.
//
// corpus: bug releaseonerror
// modelled on: alsritter/rabbit internal/pkg/qylock/README.md (Set a lock key through a helper, Release at the end)
func (a *Archiver) Archive(ctx context.Context, scheduled time.Time) error {
	unlock, err := a.locker.Acquire(ctx, "job:archive:lock", 12*time.Hour)
	if err != nil {
		return err
	}
	n, err := a.archive(ctx, scheduled.AddDate(-1, 0, 0))
	if err != nil {
		return fmt.Errorf("archive: %w", err)
	}
	if n > 0 {
		if err := a.vacuum(ctx); err != nil {
			unlock()
			return fmt.Errorf("vacuum after archiving %d orders: %w", n, err)
		}
	}
	unlock()
	return nil
}

// ArchiveReleasing releases the lock on each way out through a local
// closure wrapping the unlock.
//
// corpus: ok releaseonerror
// modelled on: alsritter/rabbit internal/pkg/qylock/README.md (Set a lock key through a helper, Release at the end)
func (a *Archiver) ArchiveReleasing(ctx context.Context, scheduled time.Time) error {
	unlock, err := a.locker.Acquire(ctx, "job:archive:lock", 12*time.Hour)
	if err != nil {
		return err
	}
	done := func(err error) error {
		unlock()
		return err
	}
	n, err := a.archive(ctx, scheduled.AddDate(-1, 0, 0))
	if err != nil {
		return done(fmt.Errorf("archive: %w", err))
	}
	if n > 0 {
		if err := a.vacuum(ctx); err != nil {
			return done(fmt.Errorf("vacuum after archiving %d orders: %w", n, err))
		}
	}
	return done(nil)
}
