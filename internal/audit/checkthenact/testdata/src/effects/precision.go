package effects

import (
	"context"
	"database/sql"
	"errors"

	"example.org/tracing"
)

// A tracing span's AddEvent is no appending write: the cache-aside below
// does no harm twice.
func (s *Service) report(ctx context.Context, span tracing.Span, key string) (string, error) {
	if v, err := s.cache.Get(ctx, key); err == nil {
		return v, nil
	}
	span.AddEvent("cache miss")
	v := render(key)
	return v, s.cache.Set(ctx, key, v)
}

// loadCount reads, but what it returns is not what it found.
func (s *Service) loadCount(ctx context.Context, db *sql.DB, id string) (int, error) {
	var name string
	err := db.QueryRowContext(ctx, "SELECT name FROM vouchers WHERE code = $1", id).Scan(&name)
	return 0, err
}

// The callee's read stays inside it: its result decides nothing here.
func (s *Service) issueAfterLoad(ctx context.Context, db *sql.DB, code string) error {
	n, err := s.loadCount(ctx, db, code)
	if err != nil {
		return err
	}
	if n == 0 {
		_, err = db.ExecContext(ctx, "INSERT INTO vouchers (code) VALUES ($1)", code)
	}
	return err
}

// pendingFor lists a batch's settlements.
func (s *Service) pendingFor(ctx context.Context, db *sql.DB, batch string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT id FROM settlements WHERE batch = $1", batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// A batch query's arguments are not the key of each row it returns.
func (s *Service) settleBatch(ctx context.Context, db *sql.DB, batch string) error {
	pending, err := s.pendingFor(ctx, db, batch)
	if err != nil {
		return err
	}
	if len(pending) == 0 {
		return nil
	}
	for _, id := range pending {
		if _, err := db.ExecContext(ctx, "INSERT INTO settlements (id) VALUES ($1)", id+"-fee"); err != nil {
			return err
		}
	}
	return nil
}

var errAlreadyExists = errors.New("already exists")

// A helper that recognises an existing row handles the duplicate.
func (s *Service) openAccount(ctx context.Context, db *sql.DB, owner string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE owner = $1", owner).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO accounts (owner) VALUES ($1)", owner)
	if err != nil && !isAlreadyExists(err) {
		return err
	}
	return nil
}

func isAlreadyExists(err error) bool { return errors.Is(err, errAlreadyExists) }

// Bucket takes the transaction it works in, which picks no record.
type Bucket interface {
	IsInitialized(ctx context.Context, tx *sql.Tx) (bool, error)
	AddLedger(ctx context.Context, tx *sql.Tx, name string) error
}

// Two calls sharing a transaction are not a check and an act of one key.
func createLedger(ctx context.Context, b Bucket, tx *sql.Tx, name string) error {
	ok, err := b.IsInitialized(ctx, tx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("not initialised")
	}
	return b.AddLedger(ctx, tx, name)
}

// The work between the check and the INSERT is out of sight: the race is
// reported, and ON CONFLICT is not offered, as it would hide it.
func (s *Service) shipOrder(ctx context.Context, db *sql.DB, orderID string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM parcels WHERE order_id = $1", orderID).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	s.ship(orderID)
	_, err := db.ExecContext(ctx, "INSERT INTO parcels (order_id) VALUES ($1)", orderID) // want `INSERT into parcels after the SELECT at precision.go:118 races`
	return err
}

func (s *Service) ship(orderID string) {}

// statusOf reads an enrolment's status, "" when there is none.
func statusOf(ctx context.Context, db *sql.DB, student string) string {
	var status string
	_ = db.QueryRowContext(ctx, "SELECT status FROM enrolments WHERE student = $1", student).Scan(&status)
	return status
}

// A switch on the status read decides the INSERT.
func (s *Service) enrol(ctx context.Context, db *sql.DB, student string) error {
	var err error
	status := statusOf(ctx, db, student)
	switch status {
	case "active", "pending":
		return nil
	case "":
		s.ship(student)
		_, err = db.ExecContext(ctx, "INSERT INTO enrolments (student, status) VALUES ($1, 'pending')", student) // want `INSERT into enrolments after the SELECT in statusOf at precision.go:134, called at precision.go:141 races`
	}
	return err
}

type voucher struct{ Code string }

func newVoucher(code string) voucher { return voucher{Code: code} }

// The row inserted is built by a constructor from the code looked up.
func (s *Service) issue(ctx context.Context, db *sql.DB, code string) error {
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM vouchers WHERE code = $1", code).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	v := newVoucher(code)
	_, err := db.ExecContext(ctx, "INSERT INTO vouchers (code) VALUES ($1)", v.Code) // want `INSERT into vouchers after the SELECT at precision.go:159 races`
	return err
}

// A row that exists, locked FOR UPDATE, then updated: the lock holds.
func (s *Service) debit(ctx context.Context, tx *sql.Tx, account string, cents int) error {
	var balance int
	if err := tx.QueryRowContext(ctx, "SELECT balance FROM balances WHERE account = $1 FOR UPDATE", account).Scan(&balance); err != nil {
		return err
	}
	if balance < cents {
		return errors.New("insufficient funds")
	}
	s.pay.Charge(ctx, account, cents)
	_, err := tx.ExecContext(ctx, "UPDATE balances SET balance = balance - $2 WHERE account = $1", account, cents)
	return err
}

// posting carries its key, and what load found, in its fields.
type posting struct {
	db    *sql.DB
	ref   string
	found bool
}

func (p *posting) load(ctx context.Context) error {
	var n int
	if err := p.db.QueryRowContext(ctx, "SELECT count(*) FROM postings WHERE ref = $1", p.ref).Scan(&n); err != nil {
		return err
	}
	p.found = n > 0
	return nil
}

func (p *posting) commit(ctx context.Context) error {
	_, err := p.db.ExecContext(ctx, "INSERT INTO postings (ref) VALUES ($1)", p.ref)
	return err
}

// load leaves its finding in p.found, which decides the commit.
func post(ctx context.Context, db *sql.DB, ref string) error {
	p := &posting{db: db, ref: ref}
	if err := p.load(ctx); err != nil {
		return err
	}
	if p.found {
		return nil
	}
	return p.commit(ctx) // want `INSERT into postings \(by commit, at precision.go:201\) after the SELECT in load at precision.go:193, called at precision.go:208 races`
}

// A loader that keeps what it read, with no write of that record after.
func postLogged(ctx context.Context, db *sql.DB, ref string) error {
	p := &posting{db: db, ref: ref}
	if err := p.load(ctx); err != nil {
		return err
	}
	if p.found {
		return nil
	}
	_, err := db.ExecContext(ctx, "INSERT INTO audit_log (ref) VALUES ($1)", ref)
	return err
}
