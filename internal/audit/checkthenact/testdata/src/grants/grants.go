// Package grants is a repository in its own package: its summaries reach
// the package effects as facts.
package grants

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Repo keeps promotion grants; its table's name says nothing of dedup.
type Repo struct{ Pool *pgxpool.Pool }

// AlreadyGranted reads whether the user holds the promotion.
func (r *Repo) AlreadyGranted(ctx context.Context, userID, promo string) (bool, error) {
	var n int
	err := r.Pool.QueryRow(ctx, "SELECT count(*) FROM grants WHERE user_id = $1 AND promo = $2", userID, promo).Scan(&n)
	return n > 0, err
}

// RecordGrant inserts the grant.
func (r *Repo) RecordGrant(ctx context.Context, userID, promo string, cents int) error {
	_, err := r.Pool.Exec(ctx, "INSERT INTO grants (user_id, promo, cents) VALUES ($1, $2, $3)", userID, promo, cents)
	return err
}

// ClaimGrant inserts the grant unless it exists.
func (r *Repo) ClaimGrant(ctx context.Context, userID, promo string) (bool, error) {
	tag, err := r.Pool.Exec(ctx, "INSERT INTO grants (user_id, promo) VALUES ($1, $2) ON CONFLICT DO NOTHING", userID, promo)
	return tag.RowsAffected() == 1, err
}
