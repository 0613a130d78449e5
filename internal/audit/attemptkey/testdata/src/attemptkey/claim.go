package attemptkey

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// Claims is a store of claims, annotated as the reference runtime's is.
type Claims interface {
	// Claim takes key.
	//
	//idemkit:claim
	Claim(ctx context.Context, key, fingerprint string) (bool, error)

	// Get reads key.
	Get(ctx context.Context, key string) ([]byte, error)
}

// The claim is keyed by a value the server makes for this request alone.
func handleClaim(store Claims) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := uuid.Must(uuid.NewRandom()).String()
		store.Claim(r.Context(), key, "fp") // want `idempotency key made by uuid.NewRandom at claim.go:24 for each request to the handler at claim.go:23 reaches the key of Claim, an //idemkit:claim`
	}
}

// The claim is keyed by the client's header; the fresh value is a lookup
// of something else.
func handleClaimClientKey(store Claims) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		store.Claim(r.Context(), r.Header.Get("Idempotency-Key"), "fp")
		store.Get(r.Context(), uuid.NewString())
	}
}

// A fallback to a fresh key when the client sent none: the variable also
// holds the client's key, so it is not reported.
func handleClaimFallback(store Claims) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if key == "" {
			key = uuid.NewString()
		}
		store.Claim(r.Context(), key, "fp")
	}
}

// A client library whose parameter says it takes an idempotency key.
type Payments interface {
	Refund(ctx context.Context, chargeID string, idempotencyKey string) error
}

func handleRefund(p Payments) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.Refund(r.Context(), r.FormValue("charge"), uuid.NewString()) // want `idempotency key made by uuid.NewString at claim.go:57 for each request to the handler at claim.go:56 reaches the idempotencyKey parameter of Refund`
	}
}

func handleRefundDerived(p Payments) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.Refund(r.Context(), r.FormValue("charge"), "refund:"+r.FormValue("charge"))
	}
}
