// Package inventory reserves stock for orders on PostgreSQL through
// database/sql, sqlx and two query builders (squirrel, goqu).
package inventory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"

	sq "github.com/Masterminds/squirrel"
	"github.com/doug-martin/goqu/v9"
	_ "github.com/doug-martin/goqu/v9/dialect/postgres" // goqu's postgres dialect
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// ErrOutOfStock says the SKU cannot cover the quantity.
var ErrOutOfStock = errors.New("inventory: out of stock")

// ErrBusy says another request holds the SKU.
var ErrBusy = errors.New("inventory: sku busy")

var pg = goqu.Dialect("postgres")

var psql = sq.StatementBuilder.PlaceholderFormat(sq.Dollar)

// Reservation is one row of reservations.
type Reservation struct {
	OrderID  string `db:"order_id"`
	SKU      string `db:"sku"`
	Quantity int    `db:"quantity"`
	Status   string `db:"status"`
}

// StockLevel is one row of stock_levels.
type StockLevel struct {
	SKU       string `db:"sku"`
	Warehouse string `db:"warehouse"`
	OnHand    int    `db:"on_hand"`
	Reserved  int    `db:"reserved"`
	Version   int    `db:"version"`
}

// Store reserves stock.
type Store struct {
	db  *sql.DB
	dbx *sqlx.DB
}

// New returns a Store; dbx wraps the same pool as db.
func New(db *sql.DB) *Store { return &Store{db: db, dbx: sqlx.NewDb(db, "postgres")} }

func isDuplicate(err error) bool {
	var pqErr *pq.Error
	return errors.As(err, &pqErr) && pqErr.Code == "23505"
}

func lockID(s string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s))
	return int64(h.Sum64())
}

// lockSKU takes a session advisory lock for the SKU on a connection of its
// own and returns the function that gives it back.
func (s *Store) lockSKU(ctx context.Context, sku string) (*sql.Conn, func(), error) {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var got bool
	if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, lockID(sku)).Scan(&got); err != nil {
		conn.Close()
		return nil, nil, err
	}
	if !got {
		conn.Close()
		return nil, nil, ErrBusy
	}
	unlock := func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, lockID(sku))
		conn.Close()
	}
	return conn, unlock, nil
}

// hasHold reports whether the order holds the SKU.
func hasHold(ctx context.Context, db *sql.DB, orderID, sku string) (bool, error) {
	var one int
	err := db.QueryRowContext(ctx, `SELECT 1 FROM holds WHERE order_id = $1 AND sku = $2`, orderID, sku).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// putHold writes a hold of the SKU for the order.
func putHold(ctx context.Context, db *sql.DB, orderID, sku string, qty int) error {
	_, err := db.ExecContext(ctx, `INSERT INTO holds (order_id, sku, quantity) VALUES ($1, $2, $3)`, orderID, sku, qty)
	return err
}

func execGoqu(ctx context.Context, db *sqlx.DB, q interface{ ToSQL() (string, []any, error) }) (sql.Result, error) {
	query, args, err := q.ToSQL()
	if err != nil {
		return nil, fmt.Errorf("build query: %w", err)
	}
	return db.ExecContext(ctx, query, args...)
}
