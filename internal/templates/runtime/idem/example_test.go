package idem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// A charge runs once per key; the retry gets the stored answer, and a different request under
// the same key is refused.
func ExampleDo() {
	store := idem.NewMemoryStore(idem.MemoryOptions{})
	ctx := context.Background()
	charge := func(ctx context.Context) (idem.Response, error) {
		fmt.Println("charging the card")
		return idem.Response{Status: 201, Body: []byte(`{"charge":"ch_1"}`)}, nil
	}
	fp, _ := idem.Fingerprint("POST", "/charges", []byte(`{"amount":4200}`), "application/json", nil)

	first, _ := idem.Do(ctx, store, "order-7", fp, charge)
	retry, _ := idem.Do(ctx, store, "order-7", fp, charge)
	fmt.Println(first.Response.Status, retry.Replayed, string(retry.Response.Body))

	other, _ := idem.Fingerprint("POST", "/charges", []byte(`{"amount":9900}`), "application/json", nil)
	_, err := idem.Do(ctx, store, "order-7", other, charge)
	fmt.Println(errors.Is(err, idem.ErrFingerprintMismatch))
	// Output:
	// charging the card
	// 201 true {"charge":"ch_1"}
	// true
}

// Each downstream side effect gets its own key, derived from the operation's key, so a retry of
// the operation reuses them and the providers deduplicate.
func ExampleDerive() {
	parent := "acme:order-7"
	fmt.Println(idem.Derive(parent, "charge") == idem.Derive(parent, "charge"))
	fmt.Println(idem.Derive(parent, "charge") != idem.Derive(parent, "email"))
	// Output:
	// true
	// true
}

// Fields that change on every retry are left out of the fingerprint.
func ExampleCanonicalJSON() {
	out, _ := idem.CanonicalJSON([]byte(`{"sent_at":"10:01", "amount": 4.20e3, "customer":"cus_1"}`), []string{"sent_at"})
	fmt.Println(string(out))
	// Output: {"amount":4200,"customer":"cus_1"}
}
