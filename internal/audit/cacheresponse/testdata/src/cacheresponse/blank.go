package cacheresponse

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

	"github.com/redis/go-redis/v9"
)

func codeOf(u string) string {
	h := sha256.Sum256([]byte(u))
	return hex.EncodeToString(h[:])[:8]
}

// storeShort keeps the first URL under its code and ignores whether it
// was the first: its SET NX's answer goes to the blank, so it claims
// nothing, and a retry does what the first request did.
func storeShort(w http.ResponseWriter, r *http.Request, rdb *redis.Client) {
	u := r.FormValue("url")
	code := codeOf(u)
	_, err := rdb.SetNX(r.Context(), "short:"+code, u, 0).Result()
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "/short/%s", code)
}

// storeShortChecked asks the same SET NX whether it set the key, and
// answers without recording: a retry finds the key and is told nothing.
func storeShortChecked(w http.ResponseWriter, r *http.Request, rdb *redis.Client) {
	u := r.FormValue("url")
	ok, err := rdb.SetNX(r.Context(), "idem:"+r.Header.Get("Idempotency-Key"), "pending", 0).Result()
	if err != nil || !ok {
		w.WriteHeader(http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "/short/%s", codeOf(u))
} // want `the end of the function answers without recording the response`
