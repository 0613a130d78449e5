package cacheresponse

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func newCode() string {
	b := make([]byte, 6)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// shorten reserves a fresh code for url, drawing again when one is taken:
// SET NX allocates the name, and the name is the answer. No retry shares
// the key, and the value SET NX wrote is all there is to record.
func shorten(ctx context.Context, rdb *redis.Client, url string) (string, error) {
	for range 5 {
		code := newCode()
		ok, err := rdb.SetNX(ctx, "short:"+code, url, 30*24*time.Hour).Result()
		if err != nil {
			return "", err
		}
		if ok {
			return code, nil
		}
	}
	return "", errors.New("no free code")
}

// reserveSlug takes a slug made from the title, with a suffix on a clash.
func reserveSlug(ctx context.Context, rdb *redis.Client, title, postID string) (string, error) {
	slug := slugOf(title)
	for i := 0; i < 3; i++ {
		ok, err := rdb.SetNX(ctx, "slug:"+slug, postID, 0).Result()
		if err != nil {
			return "", err
		}
		if ok {
			return slug, nil
		}
		slug = slugOf(title + "-" + newCode())
	}
	return "", errors.New("slug taken")
}

func slugOf(s string) string { return strings.ToLower(strings.ReplaceAll(s, " ", "-")) }

// chargeOnce claims the caller's key and answers with the new charge's
// ID without recording it: a retry finds the key taken and never gets
// the ID back. The key is handed in, not made here.
func chargeOnce(ctx context.Context, rdb *redis.Client, idemKey string) (string, error) {
	ok, err := rdb.SetNX(ctx, "idem:"+idemKey, "pending", time.Hour).Result()
	if err != nil || !ok {
		return "", errors.New("duplicate")
	}
	id := newCode()
	return id, nil // want `this return answers without recording the response under the key claimed by SetNX`
}

// chargeKeyed makes the key from the request header inside the handler
// (a call, but of what the caller sent) and answers with the key: still
// the caller's key, and the response is not recorded.
func chargeKeyed(w http.ResponseWriter, r *http.Request, rdb *redis.Client) (string, error) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := rdb.SetNX(r.Context(), "idem:"+key, "pending", time.Hour).Result()
	if err != nil || !ok {
		return "", errors.New("duplicate")
	}
	w.WriteHeader(http.StatusCreated)
	return key, nil // want `this return answers without recording the response`
}

// saveLink takes one random key, once: the key is made of nothing the
// caller sent, and the answer is the key.
func saveLink(ctx context.Context, rdb *redis.Client, url string) (string, error) {
	key := newCode()
	_, err := rdb.SetNX(ctx, key, url, 0).Result()
	return key, err
}

// chargeMinted makes a fresh key of its own and answers with the result
// of the work, not the key: the response is still unrecorded.
func chargeMinted(ctx context.Context, rdb *redis.Client, amount string) (string, error) {
	key := newCode()
	ok, err := rdb.SetNX(ctx, "idem:"+key, "pending", time.Hour).Result()
	if err != nil || !ok {
		return "", errors.New("duplicate")
	}
	receipt := "ch_" + amount
	return receipt, nil // want `this return answers without recording the response`
}

// chargeHeader reads the caller's key into a local first and answers with
// it: the key is still handed in, and the response is not recorded.
func chargeHeader(r *http.Request, rdb *redis.Client) (string, error) {
	hdr := r.Header.Get("Idempotency-Key")
	key := strings.TrimSpace(hdr)
	ok, err := rdb.SetNX(r.Context(), "idem:"+key, "pending", time.Hour).Result()
	if err != nil || !ok {
		return "", errors.New("duplicate")
	}
	return key, nil // want `this return answers without recording the response`
}

// newLink is a handler that reserves a fresh code and writes it to the
// response: the code is the answer, and the claim took it.
func newLink(w http.ResponseWriter, r *http.Request, rdb *redis.Client) {
	for range 3 {
		code := newCode()
		ok, err := rdb.SetNX(r.Context(), "short:"+code, r.FormValue("url"), 0).Result()
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if ok {
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(code))
			return
		}
	}
	http.Error(w, "no code", http.StatusInternalServerError)
}

// reserveOnce takes one fresh code and asks whether it got it: no loop,
// but the code is made of nothing the caller sent, and is the answer.
func reserveOnce(ctx context.Context, rdb *redis.Client, url string) (string, error) {
	code := newCode()
	ok, err := rdb.SetNX(ctx, "short:"+code, url, 0).Result()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errors.New("code taken, try again")
	}
	return code, nil
}
