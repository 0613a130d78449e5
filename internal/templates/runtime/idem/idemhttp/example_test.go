package idemhttp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
)

func Example() {
	mw, err := idemhttp.New(idemhttp.Options{
		Keeper: &idem.Keeper{Store: idem.NewMemoryStore(idem.MemoryOptions{})},
		// Scope keys per tenant: here the account the (already authenticated) caller acts for.
		Tenant: func(r *http.Request) (string, error) { return r.Header.Get("X-Account"), nil },
	})
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /charges", mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"charge":"ch_1"}`)
	})))

	for range 2 {
		r := httptest.NewRequest("POST", "/charges", strings.NewReader(`{"amount":4200}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Account", "acct_1")
		r.Header.Set("Idempotency-Key", `"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("Idempotent-Replayed"), w.Body)
	}
	// Output:
	// 201  {"charge":"ch_1"}
	// 201 true {"charge":"ch_1"}
}
