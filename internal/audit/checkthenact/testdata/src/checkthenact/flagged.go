package checkthenact

import (
	"context"
	"database/sql"
	"log"
	"strings"
	"sync"
)

// Events are stored whatever the lookup of their idempotency key found:
// the index on the key is not unique, and a duplicate is stored with a
// flag that keeps it from being delivered.
type ingested struct {
	ID             string
	ProjectID      string
	IdempotencyKey string
	IsDuplicate    bool
	Priority       bool
}

type eventStore struct{ db *sql.DB }

func (s *eventStore) findByKey(ctx context.Context, project, key string) (bool, error) {
	var exists bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM ingested_events WHERE project_id = $1 AND idempotency_key = $2)`, project, key).Scan(&exists)
	return exists, err
}

func (s *eventStore) create(ctx context.Context, ev *ingested) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO ingested_events (id, project_id, idempotency_key, is_duplicate) VALUES ($1, $2, $3, $4)`,
		ev.ID, ev.ProjectID, ev.IdempotencyKey, ev.IsDuplicate)
	return err
}

// createChecked takes a transaction-scoped advisory lock on the key,
// looks again under it and flags the event itself: the flag its caller
// set is only a first guess.
func (s *eventStore) createChecked(ctx context.Context, ev *ingested) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if !ev.IsDuplicate {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, ev.ProjectID+":"+ev.IdempotencyKey); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM ingested_events WHERE project_id = $1 AND idempotency_key = $2)`, ev.ProjectID, ev.IdempotencyKey).Scan(&exists); err != nil {
			return err
		}
		if exists {
			ev.IsDuplicate = true
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO ingested_events (id, project_id, idempotency_key, is_duplicate) VALUES ($1, $2, $3, $4)`,
		ev.ID, ev.ProjectID, ev.IdempotencyKey, ev.IsDuplicate); err != nil {
		return err
	}
	return tx.Commit()
}

type ingestWorker struct {
	store  *eventStore
	fanOut func(ctx context.Context, ev *ingested) error
	mu     sync.Mutex
}

// process flags the event with what the lookup found, stores it, and
// fans out only an event not flagged: two concurrent events with one key
// both find nothing, are both stored unflagged and both delivered.
func (w *ingestWorker) process(ctx context.Context, ev *ingested) error {
	if ev.IdempotencyKey != "" {
		dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
		if err != nil {
			return err
		}
		ev.IsDuplicate = dup
	}
	if err := w.store.create(ctx, ev); err != nil { // want `INSERT into ingested_events \(by create, at flagged.go:31\) after the SELECT in findByKey at flagged.go:26, called at flagged.go:75 races with a concurrent retry: both find nothing, both are stored with IsDuplicate false, and both run w.fanOut, which runs only for a record stored so; claim the key before the lookup \(INSERT \.\.\. ON CONFLICT DO NOTHING, or SET NX, or a lock held through the insert\) and set IsDuplicate from what the claim answered \(checkthenact\)`
		return err
	}
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// processDispatched leaves the test of the flag to a helper of its own.
func (w *ingestWorker) processDispatched(ctx context.Context, ev *ingested) error {
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.store.create(ctx, ev); err != nil { // want `INSERT into ingested_events .*both run w.fanOut`
		return err
	}
	return w.dispatch(ctx, ev)
}

func (w *ingestWorker) dispatch(ctx context.Context, ev *ingested) error {
	if ev.IsDuplicate {
		log.Printf("duplicate event %s not delivered", ev.ID)
		return nil
	}
	return w.fanOut(ctx, ev)
}

// processInformational stores the flag for the dashboards and delivers
// every event: the flag decides nothing, and the lookup no write.
func (w *ingestWorker) processInformational(ctx context.Context, ev *ingested) error {
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.store.create(ctx, ev); err != nil {
		return err
	}
	if ev.IsDuplicate {
		log.Printf("event %s repeats key %s", ev.ID, ev.IdempotencyKey)
	}
	return w.fanOut(ctx, ev)
}

// processOtherField gates the work on a field the lookup did not decide.
func (w *ingestWorker) processOtherField(ctx context.Context, ev *ingested) error {
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.store.create(ctx, ev); err != nil {
		return err
	}
	if !ev.Priority {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// processLocked holds the worker's mutex from the lookup through the
// insert: in this one-process worker the second event finds the first.
func (w *ingestWorker) processLocked(ctx context.Context, ev *ingested) error {
	w.mu.Lock()
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		w.mu.Unlock()
		return err
	}
	ev.IsDuplicate = dup
	err = w.store.create(ctx, ev)
	w.mu.Unlock()
	if err != nil {
		return err
	}
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// processRechecked hands the event to a create that looks again under an
// advisory lock and flags it itself: the flag tested after it is the
// store's answer, not the first lookup's.
func (w *ingestWorker) processRechecked(ctx context.Context, ev *ingested) error {
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.store.createChecked(ctx, ev); err != nil {
		return err
	}
	if ev.IsDuplicate {
		return nil
	}
	return w.fanOut(ctx, ev)
}

// processDuplicateSide runs work only for a flagged event (it reports the
// repeat to the sender): two events that both find nothing run none.
func (w *ingestWorker) processDuplicateSide(ctx context.Context, ev *ingested, warn func(context.Context, string) error) error {
	dup, err := w.store.findByKey(ctx, ev.ProjectID, ev.IdempotencyKey)
	if err != nil {
		return err
	}
	ev.IsDuplicate = dup
	if err := w.store.create(ctx, ev); err != nil {
		return err
	}
	if ev.IsDuplicate {
		return warn(ctx, ev.IdempotencyKey)
	}
	return nil
}

// Webhook receipts: every delivery is kept, and one that repeats an
// earlier delivery ID is kept as a repeat and not handled.
type receipt struct {
	DeliveryID string
	Body       string
	Repeat     bool
}

type notifier interface {
	Notify(ctx context.Context, deliveryID, body string) error
}

type receiver struct {
	db     *sql.DB
	notify notifier
}

// receive builds the receipt with the count the lookup found and inserts
// it; only a first delivery notifies.
func (r *receiver) receive(ctx context.Context, deliveryID, body string) error {
	var n int
	if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM receipts WHERE delivery_id = $1`, deliveryID).Scan(&n); err != nil {
		return err
	}
	rc := receipt{DeliveryID: deliveryID, Body: body, Repeat: n > 0}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO receipts (delivery_id, body, repeat) VALUES ($1, $2, $3)`, rc.DeliveryID, rc.Body, rc.Repeat); err != nil { // want `INSERT into receipts after the SELECT at flagged.go:221 races with a concurrent retry: both find nothing, both are stored with Repeat false, and both run r.notify.Notify,`
		return err
	}
	if !rc.Repeat {
		return r.notify.Notify(ctx, rc.DeliveryID, rc.Body)
	}
	return nil
}

// receiveFlagSet sets the flag by hand when the lookup counted a row.
func (r *receiver) receiveFlagSet(ctx context.Context, deliveryID, body string) error {
	rc := &receipt{DeliveryID: deliveryID, Body: body}
	var n int
	if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM receipts WHERE delivery_id = $1`, deliveryID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		rc.Repeat = true
	}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO receipts (delivery_id, body, repeat) VALUES ($1, $2, $3)`, rc.DeliveryID, rc.Body, rc.Repeat); err != nil { // want `INSERT into receipts after the SELECT at flagged.go:238 races.* both are stored with Repeat false`
		return err
	}
	if rc.Repeat {
		return nil
	}
	return r.notify.Notify(ctx, rc.DeliveryID, rc.Body)
}

// receiveArg hands the lookup's answer to the insert as an argument of
// its own and tests the answer itself afterwards.
func (r *receiver) receiveArg(ctx context.Context, deliveryID, body string) error {
	var seen bool
	if err := r.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM receipts WHERE delivery_id = $1)`, deliveryID).Scan(&seen); err != nil {
		return err
	}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO receipts (delivery_id, body, repeat) VALUES ($1, $2, $3)`, deliveryID, body, seen); err != nil { // want `INSERT into receipts after the SELECT at flagged.go:257 races.* both are stored with seen false`
		return err
	}
	if seen {
		return nil
	}
	return r.notify.Notify(ctx, deliveryID, body)
}

// receiveUnique inserts into a table whose delivery ID is unique and
// treats the violation as a repeat: the constraint decides, not the flag.
func (r *receiver) receiveUnique(ctx context.Context, deliveryID, body string) error {
	var n int
	if err := r.db.QueryRowContext(ctx, `SELECT count(*) FROM receipts WHERE delivery_id = $1`, deliveryID).Scan(&n); err != nil {
		return err
	}
	rc := receipt{DeliveryID: deliveryID, Body: body, Repeat: n > 0}
	if _, err := r.db.ExecContext(ctx, `INSERT INTO receipts (delivery_id, body, repeat) VALUES ($1, $2, $3)`, rc.DeliveryID, rc.Body, rc.Repeat); err != nil {
		if strings.Contains(err.Error(), "duplicate key") {
			return nil
		}
		return err
	}
	if !rc.Repeat {
		return r.notify.Notify(ctx, rc.DeliveryID, rc.Body)
	}
	return nil
}

// receiveAdvisory takes a transaction-scoped advisory lock on the
// delivery ID before the lookup: the next delivery waits and finds this
// one's row.
func (r *receiver) receiveAdvisory(ctx context.Context, deliveryID, body string) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, deliveryID); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM receipts WHERE delivery_id = $1`, deliveryID).Scan(&n); err != nil {
		return err
	}
	rc := receipt{DeliveryID: deliveryID, Body: body, Repeat: n > 0}
	if _, err := tx.ExecContext(ctx, `INSERT INTO receipts (delivery_id, body, repeat) VALUES ($1, $2, $3)`, rc.DeliveryID, rc.Body, rc.Repeat); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if !rc.Repeat {
		return r.notify.Notify(ctx, rc.DeliveryID, rc.Body)
	}
	return nil
}

// Sign-ups are kept per request, and the first with an email is welcomed.
type signup struct {
	Email string
	First bool
}

type mailer interface {
	Welcome(ctx context.Context, email string) error
}

type signups struct {
	db   *sql.DB
	mail mailer
}

// register stores whether the email is new the other way round, as First:
// only a first sign-up is welcomed, through a helper of the package.
func (s *signups) register(ctx context.Context, email string) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM signups WHERE email = $1`, email).Scan(&n); err != nil {
		return err
	}
	su := signup{Email: email, First: n == 0}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO signups (email, first) VALUES ($1, $2)`, su.Email, su.First); err != nil { // want `INSERT into signups after the SELECT at flagged.go:337 races with a concurrent retry: both find nothing, both are stored with First true, and both run s.welcome,`
		return err
	}
	if su.First {
		return s.welcome(ctx, su.Email)
	}
	return nil
}

func (s *signups) welcome(ctx context.Context, email string) error {
	return s.mail.Welcome(ctx, email)
}

// registerQuietly tests the flag the wrong way round for any work: a
// repeat sign-up is only logged.
func (s *signups) registerQuietly(ctx context.Context, email string) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM signups WHERE email = $1`, email).Scan(&n); err != nil {
		return err
	}
	su := signup{Email: email, First: n == 0}
	if _, err := s.db.ExecContext(ctx, `INSERT INTO signups (email, first) VALUES ($1, $2)`, su.Email, su.First); err != nil {
		return err
	}
	if !su.First {
		log.Printf("repeat sign-up for %s", su.Email)
	}
	return nil
}
