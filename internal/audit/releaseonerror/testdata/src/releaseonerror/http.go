package releaseonerror

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type server struct{ rdb *redis.Client }

func (s *server) charge(r *http.Request) (map[string]string, error) { return nil, nil }

func (s *server) pay(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Result()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	res, err := s.charge(r)
	if err != nil {
		http.Error(w, "charge failed", http.StatusBadGateway) // want `this 502 response leaves the key claimed by SetNX at http.go:17 held`
		return
	}
	body, _ := json.Marshal(res)
	s.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Write(body)
}

// Negative: the key is given back before the failure is answered.
func (s *server) payReleasing(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := s.rdb.SetNX(r.Context(), key, "in_progress", 24*time.Hour).Result()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	res, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(res)
	s.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Write(body)
}
