// Package api accepts match requests: it claims the player's key and
// hands the booking to a goroutine of the handoff package.
package api

import (
	"context"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/corpus/handoff"
)

// Matches answers match requests.
type Matches struct {
	Redis   *redis.Client
	Matcher *handoff.Matcher
}

// Request claims the player's key and answers 202 while Book runs; Book
// returns on a lobby failure without giving the key back, so every retry
// is answered "in progress" until the claim expires.
//
// corpus: bug releaseonerror
// modelled on: st-matskevich/go-matchmaker api/controller/controller.go (the request marked in Redis and answered 202 while another component books the server)
func (m *Matches) Request(w http.ResponseWriter, r *http.Request) {
	player := r.Header.Get("X-Player")
	key := "match:" + player
	ok, err := m.Redis.SetNX(r.Context(), key, "booking", 10*time.Minute).Result()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "match request in progress", http.StatusConflict)
		return
	}
	go m.Matcher.Book(context.WithoutCancel(r.Context()), key, player)
	w.WriteHeader(http.StatusAccepted)
}

// RequestReleased hands the key to BookOrRelease, which gives it back
// when the lobby fails.
//
// corpus: ok releaseonerror
// modelled on: st-matskevich/go-matchmaker api/controller/controller.go (the same hand-off, to work that releases the key on a failure)
func (m *Matches) RequestReleased(w http.ResponseWriter, r *http.Request) {
	player := r.Header.Get("X-Player")
	key := "match:" + player
	ok, err := m.Redis.SetNX(r.Context(), key, "booking", 10*time.Minute).Result()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "match request in progress", http.StatusConflict)
		return
	}
	go m.Matcher.BookOrRelease(context.WithoutCancel(r.Context()), key, player)
	w.WriteHeader(http.StatusAccepted)
}
