package billing

import (
	"context"
	"fmt"
)

// statementSettled reports whether the statement has a settlement.
func (s *Service) statementSettled(ctx context.Context, statementID string) (bool, error) {
	var settled bool
	err := s.sqlDB.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM settlements WHERE statement_id = $1)`, statementID).Scan(&settled)
	if err != nil {
		return false, fmt.Errorf("statement settled: %w", err)
	}
	return settled, nil
}

// settleStatement writes the statement's settlement.
func (s *Service) settleStatement(ctx context.Context, statementID string, amount int64) error {
	if _, err := s.sqlDB.ExecContext(ctx,
		`INSERT INTO settlements (statement_id, amount_cents) VALUES ($1, $2)`, statementID, amount); err != nil {
		return fmt.Errorf("settle statement: %w", err)
	}
	return nil
}

// settleStatementOnce writes the statement's settlement unless it has
// one, and reports whether it wrote it.
func (s *Service) settleStatementOnce(ctx context.Context, statementID string, amount int64) (bool, error) {
	res, err := s.sqlDB.ExecContext(ctx,
		`INSERT INTO settlements (statement_id, amount_cents) VALUES ($1, $2)
		 ON CONFLICT (statement_id) DO NOTHING`, statementID, amount)
	if err != nil {
		return false, fmt.Errorf("settle statement: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	return n == 1, nil
}

// CloseStatement settles a merchant's statement at the end of its
// period; the settlement run retries statements it did not hear back on.
//
// corpus: bug checkthenact
// modelled on: go-zoox/gormx find_one_or_create.go (FindOneOrCreate: a lookup helper, then a create helper)
func (s *Service) CloseStatement(ctx context.Context, statementID string, amount int64) error {
	settled, err := s.statementSettled(ctx, statementID)
	if err != nil {
		return err
	}
	if settled {
		return nil
	}
	return s.settleStatement(ctx, statementID, amount)
}

// CloseStatementOnce settles a merchant's statement at the end of its
// period; the lookup only skips the common case, the conditional insert
// decides.
//
// corpus: ok checkthenact
// modelled on: go-zoox/gormx find_one_or_create.go (FindOneOrCreate: a lookup helper, then a create helper)
func (s *Service) CloseStatementOnce(ctx context.Context, statementID string, amount int64) (bool, error) {
	settled, err := s.statementSettled(ctx, statementID)
	if err != nil {
		return false, err
	}
	if settled {
		return false, nil
	}
	return s.settleStatementOnce(ctx, statementID, amount)
}
