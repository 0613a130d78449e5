// Package account is the example's stand-in for authentication: a request's bearer token names
// the account it acts for. A real service gets the account from its session or token
// verification; what matters here is that the idempotency key is scoped by an account the server
// established, not one the client merely claims in the body.
package account

import (
	"context"
	"net/http"
	"strings"
)

type ctxKey struct{}

// Required answers 401 to a request without "Authorization: Bearer acct_...", and otherwise puts
// the account into the request's context for From.
func Required(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !strings.HasPrefix(token, "acct_") || len(token) > 64 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="payments"`)
			http.Error(w, "an account token (Authorization: Bearer acct_...) is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, token)))
	})
}

// From returns the account Required found, or "".
func From(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}
