package billing

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// StatementLine is one line of the bank's account statement.
type StatementLine struct {
	Ref         string
	AmountCents int64
	InvoiceRef  string
}

// ImportStatement books the lines of a bank statement file; the bank
// re-sends the file when the import does not acknowledge it. The lines
// already booked are looked up in one query and the rest queued in one
// batch.
//
// corpus: bug checkthenact
// modelled on: e2b-dev/infra packages/db/pkg/types/db.go (pgx v5 Query and Exec behind a small interface)
func (s *Service) ImportStatement(ctx context.Context, lines []StatementLine) (int, error) {
	refs := make([]string, len(lines))
	for i, l := range lines {
		refs[i] = l.Ref
	}
	rows, err := s.pool.Query(ctx, `SELECT line_ref FROM statement_lines WHERE line_ref = ANY($1)`, refs)
	if err != nil {
		return 0, fmt.Errorf("import statement: %w", err)
	}
	booked, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("import statement: %w", err)
	}
	seen := make(map[string]bool, len(booked))
	for _, r := range booked {
		seen[r] = true
	}
	batch := &pgx.Batch{}
	for _, l := range lines {
		if seen[l.Ref] {
			continue
		}
		batch.Queue(`INSERT INTO statement_lines (line_ref, amount_cents, invoice_ref) VALUES ($1, $2, $3)`,
			l.Ref, l.AmountCents, l.InvoiceRef)
	}
	if err := s.pool.SendBatch(ctx, batch).Close(); err != nil {
		return 0, fmt.Errorf("import statement: %w", err)
	}
	return batch.Len(), nil
}

// ImportStatementOnce books the lines of a bank statement file in one
// statement that skips the lines the unique index on line_ref already
// holds and returns the ones it wrote.
//
// corpus: ok checkthenact
// modelled on: e2b-dev/infra packages/db/pkg/types/db.go (pgx v5 Query and Exec behind a small interface)
func (s *Service) ImportStatementOnce(ctx context.Context, lines []StatementLine) (int, error) {
	refs := make([]string, len(lines))
	amounts := make([]int64, len(lines))
	invoices := make([]string, len(lines))
	for i, l := range lines {
		refs[i], amounts[i], invoices[i] = l.Ref, l.AmountCents, l.InvoiceRef
	}
	rows, err := s.pool.Query(ctx,
		`INSERT INTO statement_lines (line_ref, amount_cents, invoice_ref)
		 SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])
		 ON CONFLICT (line_ref) DO NOTHING
		 RETURNING line_ref`, refs, amounts, invoices)
	if err != nil {
		return 0, fmt.Errorf("import statement: %w", err)
	}
	written, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return 0, fmt.Errorf("import statement: %w", err)
	}
	return len(written), nil
}
