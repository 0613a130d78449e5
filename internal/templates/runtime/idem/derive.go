package idem

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// maxStepLen keeps a derived key within every provider's limit (SQS deduplication IDs allow 128
// characters, Stripe keys 255): step, a dash and 40 hex digits.
const maxStepLen = 32

// Derive returns the key for one downstream step of the operation keyed by parent — the charge,
// the email, the ledger write — so each side effect has its own idempotency and a retry of the
// parent reuses every step's key. The result is the step name, a dash and a hash of parent and
// step: the same inputs always give the same key, different parents or steps never collide by
// concatenation ("a:b"+"c" against "a"+"b:c"), and the length is bounded however long parent is.
// Pass the scoped key the operation was claimed under, so steps inherit its tenant scoping.
//
// Step names are constants in code, so an invalid one (empty, longer than 32 bytes, or outside
// [A-Za-z0-9._-]) is a programming error and Derive panics.
func Derive(parent, step string) string {
	if err := checkStep(step); err != nil {
		panic(err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "idem-derive-v1\x00%d:%s\x00%s", len(parent), parent, step)
	return step + "-" + hex.EncodeToString(h.Sum(nil)[:20])
}

func checkStep(step string) error {
	if step == "" || len(step) > maxStepLen {
		return fmt.Errorf("idem: Derive step %q must be 1 to %d bytes", step, maxStepLen)
	}
	for _, c := range []byte(step) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("idem: Derive step %q has %q outside [A-Za-z0-9._-]", step, c)
		}
	}
	return nil
}
