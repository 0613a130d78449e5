package inventory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/doug-martin/goqu/v9"
)

// Reserve reserves a SKU for an order once, through squirrel.
//
// corpus: bug checkthenact
// modelled on: xo/xo templates/postgres.index.go.tpl (squirrel Select with sq.Eq per field, then a Get)
func (s *Store) Reserve(ctx context.Context, orderID, sku string, qty int) error {
	query, args, err := psql.Select("status").From("reservations").
		Where(sq.Eq{"order_id": orderID, "sku": sku}).ToSql()
	if err != nil {
		return fmt.Errorf("build select: %w", err)
	}
	var status string
	err = s.db.QueryRowContext(ctx, query, args...).Scan(&status)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("select reservation: %w", err)
	}
	_, err = psql.Insert("reservations").Columns("order_id", "sku", "quantity", "status").
		Values(orderID, sku, qty, "held").RunWith(s.db).ExecContext(ctx)
	return err
}

// ReserveOnce reserves a SKU for an order once; the insert skips a pair
// that is already reserved.
//
// corpus: ok checkthenact
// modelled on: xo/xo templates/postgres.index.go.tpl (queries built with squirrel and run on the handle)
func (s *Store) ReserveOnce(ctx context.Context, orderID, sku string, qty int) (bool, error) {
	res, err := psql.Insert("reservations").Columns("order_id", "sku", "quantity", "status").
		Values(orderID, sku, qty, "held").
		Suffix("ON CONFLICT (order_id, sku) DO NOTHING").
		RunWith(s.db).ExecContext(ctx)
	if err != nil {
		return false, fmt.Errorf("insert reservation: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Backorder records that an order waits for a SKU, once per pair.
//
// corpus: bug checkthenact
// modelled on: Revazashvili/ecommerce-inventory-management stock/database/query.sql (StockReservationExists before AddStockReservation)
func (s *Store) Backorder(ctx context.Context, orderID, sku string, qty int) error {
	var n int
	if err := s.dbx.GetContext(ctx, &n,
		`SELECT count(*) FROM backorders WHERE order_id = $1 AND sku = $2`, orderID, sku); err != nil {
		return fmt.Errorf("count backorders: %w", err)
	}
	if n != 0 {
		return nil
	}
	_, err := execGoqu(ctx, s.dbx, pg.Insert("backorders").Rows(goqu.Record{
		"order_id": orderID, "sku": sku, "quantity": qty, "created_at": time.Now(),
	}))
	return err
}

// ReserveLocked reserves a SKU for an order once. The SKU's stock row,
// which exists, is locked first, and every reservation of the SKU takes
// the same row lock, so the lookup and the insert are serialised.
//
// corpus: ok checkthenact
// modelled on: subin940113/commerce-core src/main/kotlin/com/example/commerce/catalog/InventoryRepository.kt (findByProductIdForUpdate before the stock change)
func (s *Store) ReserveLocked(ctx context.Context, orderID, sku string, qty int) error {
	tx, err := s.dbx.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var lvl StockLevel
	if err := tx.GetContext(ctx, &lvl,
		`SELECT sku, warehouse, on_hand, reserved, version FROM stock_levels WHERE sku = $1 AND warehouse = 'main' FOR UPDATE`, sku); err != nil {
		return fmt.Errorf("lock stock: %w", err)
	}
	var held []Reservation
	if err := tx.SelectContext(ctx, &held,
		`SELECT order_id, sku, quantity, status FROM reservations WHERE order_id = $1 AND sku = $2`, orderID, sku); err != nil {
		return fmt.Errorf("select reservations: %w", err)
	}
	if len(held) > 0 {
		return tx.Commit()
	}
	if lvl.OnHand-lvl.Reserved < qty {
		return ErrOutOfStock
	}
	if _, err := tx.NamedExecContext(ctx,
		`INSERT INTO reservations (order_id, sku, quantity, status) VALUES (:order_id, :sku, :quantity, :status)`,
		Reservation{OrderID: orderID, SKU: sku, Quantity: qty, Status: "held"}); err != nil {
		return fmt.Errorf("insert reservation: %w", err)
	}
	if _, err := tx.ExecContext(ctx,
		`UPDATE stock_levels SET reserved = reserved + $1 WHERE sku = $2 AND warehouse = 'main'`, qty, sku); err != nil {
		return fmt.Errorf("update stock: %w", err)
	}
	return tx.Commit()
}

// Allocate allocates a SKU to an order once, locking the allocation row
// before writing it.
//
// corpus: bug checkthenact
// modelled on: FortiShop/product-inventory-service src/main/java/org/fortishop/productinventoryservice/Repository/InventoryRepository.java (a PESSIMISTIC_WRITE lookup)
func (s *Store) Allocate(ctx context.Context, orderID, sku string, qty int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var existing int
	err = tx.QueryRowContext(ctx,
		`SELECT quantity FROM allocations WHERE order_id = $1 AND sku = $2 FOR UPDATE`, orderID, sku).Scan(&existing)
	switch {
	case err == nil:
		return tx.Commit()
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("select allocation: %w", err)
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO allocations (order_id, sku, quantity) VALUES ($1, $2, $3)`, orderID, sku, qty); err != nil {
		return fmt.Errorf("insert allocation: %w", err)
	}
	return tx.Commit()
}

// AddReserved adds to a SKU's reserved count with optimistic locking,
// retrying when the version moved.
//
// corpus: ok checkthenact
// modelled on: Revazashvili/ecommerce-inventory-management stock/database/query.sql (UpdateStockReserve guarded by the version)
func (s *Store) AddReserved(ctx context.Context, sku string, qty int) error {
	for range 5 {
		var lvl StockLevel
		if err := s.dbx.GetContext(ctx, &lvl,
			`SELECT sku, warehouse, on_hand, reserved, version FROM stock_levels WHERE sku = $1 AND warehouse = 'main'`, sku); err != nil {
			return fmt.Errorf("select stock: %w", err)
		}
		if lvl.OnHand-lvl.Reserved < qty {
			return ErrOutOfStock
		}
		res, err := s.dbx.ExecContext(ctx,
			`UPDATE stock_levels SET reserved = $1, version = version + 1 WHERE sku = $2 AND warehouse = 'main' AND version = $3`,
			lvl.Reserved+qty, sku, lvl.Version)
		if err != nil {
			return fmt.Errorf("update stock: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return nil
		}
	}
	return ErrBusy
}

// SyncLevel stores a warehouse's count of a SKU from the nightly scan;
// the count is absolute, so writing it twice leaves the same row.
//
// corpus: ok checkthenact
// modelled on: takyu/knowledge Basic_DB/04/01/statement.sql (txn_stocks amounts set per product and shop)
func (s *Store) SyncLevel(ctx context.Context, sku, warehouse string, onHand int) error {
	var cur StockLevel
	err := s.dbx.GetContext(ctx, &cur,
		`SELECT sku, warehouse, on_hand, reserved, version FROM stock_levels WHERE sku = $1 AND warehouse = $2`, sku, warehouse)
	if err == nil && cur.OnHand == onHand {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("select stock: %w", err)
	}
	_, err = execGoqu(ctx, s.dbx, pg.Insert("stock_levels").
		Rows(goqu.Record{"sku": sku, "warehouse": warehouse, "on_hand": onHand, "reserved": 0, "version": 0}).
		OnConflict(goqu.DoUpdate("sku, warehouse", goqu.Record{"on_hand": goqu.L("EXCLUDED.on_hand")})))
	return err
}

// RecordMovement records a stock movement of a known SKU; the lookup is
// of the product, the write of the movement under its own ID.
//
// corpus: ok checkthenact
// modelled on: takyu/knowledge Basic_DB/04/01/statement.sql (an insert and an update of different rows in one session)
func (s *Store) RecordMovement(ctx context.Context, movementID, sku string, delta int) error {
	var known bool
	if err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM products WHERE sku = $1)`, sku).Scan(&known); err != nil {
		return fmt.Errorf("product exists: %w", err)
	}
	if !known {
		return fmt.Errorf("unknown sku %q", sku)
	}
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO stock_movements (movement_id, sku, delta, recorded_at) VALUES ($1, $2, $3, now())`, movementID, sku, delta)
	if isDuplicate(err) {
		return nil
	}
	return err
}

// Hold puts a hold of a SKU for an order unless it has one.
//
// corpus: bug checkthenact
// modelled on: slon/shad-go lectures/07-sql/query/queryrow.go (QueryRowContext with sql.ErrNoRows taken as absent)
func (s *Store) Hold(ctx context.Context, orderID, sku string, qty int) error {
	held, err := hasHold(ctx, s.db, orderID, sku)
	if err != nil {
		return fmt.Errorf("has hold: %w", err)
	}
	if held {
		return nil
	}
	return putHold(ctx, s.db, orderID, sku, qty)
}
