// Package api is the HTTP API of the storefront: grants of features,
// coupons, slot reservations, transfers and checkout. Handlers reach the
// database directly, through the sqlc queries in package db, or through
// the repositories in package store.
package api

import (
	"database/sql"
	"encoding/json"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jmoiron/sqlx"
	"github.com/stripe/stripe-go/v82"
	"github.com/uptrace/bun"
	"gorm.io/gorm"

	"example.com/corpus/db"
	"example.com/corpus/store"
)

// Server holds what the handlers share.
type Server struct {
	pool         *pgxpool.Pool
	sqlDB        *sql.DB
	gdb          *gorm.DB
	bdb          *bun.DB
	xdb          *sqlx.DB
	q            *db.Queries
	grants       store.GrantRepository
	redemptions  store.RedemptionRepository
	reservations store.ReservationRepository
	idem         store.IdempotencyRepository
	stripe       *stripe.Client
	http         *http.Client
	paymentsURL  string
}

// Deps are the Server's dependencies.
type Deps struct {
	Pool         *pgxpool.Pool
	SQL          *sql.DB
	Gorm         *gorm.DB
	Bun          *bun.DB
	Sqlx         *sqlx.DB
	Grants       store.GrantRepository
	Redemptions  store.RedemptionRepository
	Reservations store.ReservationRepository
	Idempotency  store.IdempotencyRepository
	Stripe       *stripe.Client
	HTTP         *http.Client
	PaymentsURL  string
}

// NewServer returns a Server on d.
func NewServer(d Deps) *Server {
	return &Server{
		pool: d.Pool, sqlDB: d.SQL, gdb: d.Gorm, bdb: d.Bun, xdb: d.Sqlx, q: db.New(d.Pool),
		grants: d.Grants, redemptions: d.Redemptions, reservations: d.Reservations, idem: d.Idempotency,
		stripe: d.Stripe, http: d.HTTP, paymentsURL: d.PaymentsURL,
	}
}

// userID is the authenticated user, set by the auth middleware.
func userID(r *http.Request) string { return r.Header.Get("X-User-ID") }

// decode reads the JSON body into v.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// writeJSON answers with code and v as JSON.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// writeRaw answers with code and a body already encoded.
func writeRaw(w http.ResponseWriter, code int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// writeError answers with a problem document.
func writeError(w http.ResponseWriter, code int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"status": code, "detail": detail})
}
