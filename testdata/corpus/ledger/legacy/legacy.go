// Package legacy is the payout side of the ledger, still on pgx v4.
package legacy

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v4/pgxpool"
)

// Payouts stores payout instructions.
type Payouts struct {
	pool *pgxpool.Pool
}

// New returns Payouts on pool.
func New(pool *pgxpool.Pool) *Payouts { return &Payouts{pool: pool} }

// Instruction is one payout to a beneficiary.
type Instruction struct {
	PayoutRef   string
	Beneficiary string
	AmountMinor int64
}

// Instruct records a payout instruction once per payout reference.
//
// corpus: bug checkthenact
// modelled on: edgarSucre/cred-man internal/infrastructure/db/repository/transaction.go (work run inside a pool transaction helper)
func (p *Payouts) Instruct(ctx context.Context, in Instruction) error {
	return p.pool.BeginFunc(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, `SELECT id FROM payout_instructions WHERE payout_ref = $1`, in.PayoutRef).Scan(&id)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("select instruction: %w", err)
		}
		_, err = tx.Exec(ctx,
			`INSERT INTO payout_instructions (payout_ref, beneficiary, amount_minor, status) VALUES ($1, $2, $3, 'new')`,
			in.PayoutRef, in.Beneficiary, in.AmountMinor)
		return err
	})
}

// InstructOnce records a payout instruction once per payout reference with
// an upsert that also says whether the row is new.
//
// corpus: ok checkthenact
// modelled on: bluearena/TGChatScanner models/tag.go (CreateIfUnique: an insert with ON CONFLICT on the unique constraint)
func (p *Payouts) InstructOnce(ctx context.Context, in Instruction) (bool, error) {
	var inserted bool
	err := p.pool.QueryRow(ctx,
		`INSERT INTO payout_instructions (payout_ref, beneficiary, amount_minor, status) VALUES ($1, $2, $3, 'new')
		 ON CONFLICT (payout_ref) DO UPDATE SET payout_ref = EXCLUDED.payout_ref
		 RETURNING (xmax = 0)`, in.PayoutRef, in.Beneficiary, in.AmountMinor).Scan(&inserted)
	if err != nil {
		return false, fmt.Errorf("upsert instruction: %w", err)
	}
	return inserted, nil
}
