// Package links is a link shortener's store: short codes reserved with SET
// NX, and the API calls that create links for customers.
package links

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// ErrNoCode says every code drawn was taken.
var ErrNoCode = errors.New("links: no free short code")

// Store keeps short code -> long URL mappings in Redis.
type Store struct {
	rdb *redis.Client
	ttl time.Duration
}

func randomCode(n int) (string, error) {
	b := make([]byte, n)
	for i := range b {
		x, err := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		if err != nil {
			return "", err
		}
		b[i] = alphabet[x.Int64()]
	}
	return string(b), nil
}

// Shorten reserves a fresh code for url, drawing again when the code is
// taken; the code it took is the answer.
//
// corpus: ok cacheresponse
// modelled on: nawazdhandala's Redis URL shortener guide (short code generation, collision handling with SETNX)
func (s *Store) Shorten(ctx context.Context, url string) (string, error) {
	for range 5 {
		code, err := randomCode(7)
		if err != nil {
			return "", err
		}
		ok, err := s.rdb.SetNX(ctx, "short:"+code, url, s.ttl).Result()
		if err != nil {
			return "", err
		}
		if ok {
			return code, nil
		}
	}
	return "", ErrNoCode
}

// Save stores url under one random key and answers with the key.
//
// corpus: ok cacheresponse
// modelled on: ryanbenson/go-short database.go (Save: a random key, SetNx, the key returned)
func (s *Store) Save(ctx context.Context, url string) (string, error) {
	key, err := randomCode(16)
	if err != nil {
		return "", err
	}
	_, err = s.rdb.SetNX(ctx, key, url, 0).Result()
	return key, err
}

type createReq struct {
	URL string `json:"url"`
}

type createResp struct {
	Code string `json:"code"`
}

// Create is the API's create-link call: the client's Idempotency-Key is
// claimed, a code is reserved, and the code is sent back; the claim is
// never completed with that answer, so a retry with the same key gets a
// 409 and never learns the code.
//
// corpus: bug cacheresponse
// modelled on: nawazdhandala's Redis URL shortener guide (the create endpoint, with an Idempotency-Key claim added as services add one)
func (s *Store) Create(w http.ResponseWriter, r *http.Request) {
	var req createReq
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	idem := "idem:links:" + r.Header.Get("Idempotency-Key")
	ok, err := s.rdb.SetNX(r.Context(), idem, "pending", 24*time.Hour).Result()
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}
	code, err := s.Shorten(r.Context(), req.URL)
	if err != nil {
		s.rdb.Del(r.Context(), idem)
		http.Error(w, "no code", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(createResp{Code: code})
}
