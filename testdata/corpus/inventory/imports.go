package inventory

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
)

// CountRow is one line of a warehouse count file.
type CountRow struct {
	SKU    string
	OnHand int
}

// claimImport records that a count file is being imported and reports
// whether this call recorded it.
func (s *Store) claimImport(ctx context.Context, fileID string) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO count_imports (file_id, status) VALUES ($1, 'importing') ON CONFLICT (file_id) DO NOTHING`, fileID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s *Store) unclaimImport(ctx context.Context, fileID string) {
	if _, err := s.db.ExecContext(context.WithoutCancel(ctx),
		`DELETE FROM count_imports WHERE file_id = $1 AND status = 'importing'`, fileID); err != nil {
		slog.ErrorContext(ctx, "unclaim import", "file", fileID, "err", err)
	}
}

func (s *Store) finishImport(ctx context.Context, fileID string, rows int) error {
	_, err := s.db.ExecContext(ctx,
		`UPDATE count_imports SET status = 'imported', row_count = $2 WHERE file_id = $1`, fileID, rows)
	return err
}

func (s *Store) applyCount(ctx context.Context, tx *sql.Tx, warehouse string, row CountRow) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO stock_levels (sku, warehouse, on_hand, reserved, version) VALUES ($1, $2, $3, 0, 0)
		 ON CONFLICT (sku, warehouse) DO UPDATE SET on_hand = EXCLUDED.on_hand`, row.SKU, warehouse, row.OnHand)
	return err
}

// ImportCounts applies a warehouse count file once per file.
//
// corpus: bug releaseonerror
// modelled on: takyu/knowledge Basic_DB/04/01/statement.sql (stock rows changed in a transaction, committed or rolled back)
func (s *Store) ImportCounts(ctx context.Context, fileID, warehouse string, rows []CountRow) error {
	claimed, err := s.claimImport(ctx, fileID)
	if err != nil {
		return fmt.Errorf("claim import: %w", err)
	}
	if !claimed {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		s.unclaimImport(ctx, fileID)
		return err
	}
	defer tx.Rollback()
	for i, row := range rows {
		if err := s.applyCount(ctx, tx, warehouse, row); err != nil {
			return fmt.Errorf("row %d (%s): %w", i+1, row.SKU, err)
		}
	}
	if err := tx.Commit(); err != nil {
		s.unclaimImport(ctx, fileID)
		return err
	}
	return s.finishImport(ctx, fileID, len(rows))
}

// ImportCountsGuarded applies a warehouse count file once per file; a
// deferred function gives the claim back unless the import finished.
//
// corpus: ok releaseonerror
// modelled on: takyu/knowledge Basic_DB/04/01/statement.sql (stock rows changed in a transaction, committed or rolled back)
func (s *Store) ImportCountsGuarded(ctx context.Context, fileID, warehouse string, rows []CountRow) error {
	claimed, err := s.claimImport(ctx, fileID)
	if err != nil {
		return fmt.Errorf("claim import: %w", err)
	}
	if !claimed {
		return nil
	}
	finished := false
	defer func() {
		if !finished {
			s.unclaimImport(ctx, fileID)
		}
	}()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i, row := range rows {
		if err := s.applyCount(ctx, tx, warehouse, row); err != nil {
			return fmt.Errorf("row %d (%s): %w", i+1, row.SKU, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if err := s.finishImport(ctx, fileID, len(rows)); err != nil {
		return err
	}
	finished = true
	return nil
}

// scanResult is what the label printer reports for a pick list.
type scanResult struct {
	labels int
	err    error
}

// PrintPickList sends a pick list to the warehouse label printer once per
// list, waiting for the printer or for the caller to give up.
//
// corpus: bug releaseonerror
// modelled on: allisson/go-pglock README.md (a lock held by one process while it works, released when done)
func (s *Store) PrintPickList(ctx context.Context, listID string, print func(context.Context) <-chan scanResult) (int, error) {
	claimed, err := s.claimImport(ctx, "picklist:"+listID)
	if err != nil {
		return 0, fmt.Errorf("claim pick list: %w", err)
	}
	if !claimed {
		return 0, nil
	}
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case res := <-print(ctx):
		if res.err != nil {
			s.unclaimImport(ctx, "picklist:"+listID)
			return 0, res.err
		}
		return res.labels, s.finishImport(ctx, "picklist:"+listID, res.labels)
	}
}

// PrintPickListCancellable sends a pick list to the warehouse label printer
// once per list; a cancelled wait gives the claim back like a failure.
//
// corpus: ok releaseonerror
// modelled on: allisson/go-pglock README.md (a lock held by one process while it works, released when done)
func (s *Store) PrintPickListCancellable(ctx context.Context, listID string, print func(context.Context) <-chan scanResult) (int, error) {
	id := "picklist:" + listID
	claimed, err := s.claimImport(ctx, id)
	if err != nil {
		return 0, fmt.Errorf("claim pick list: %w", err)
	}
	if !claimed {
		return 0, nil
	}
	select {
	case <-ctx.Done():
		s.unclaimImport(ctx, id)
		return 0, ctx.Err()
	case res := <-print(ctx):
		if res.err != nil {
			s.unclaimImport(ctx, id)
			return 0, res.err
		}
		return res.labels, s.finishImport(ctx, id, res.labels)
	}
}
