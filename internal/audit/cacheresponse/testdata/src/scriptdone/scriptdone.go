// Package scriptdone completes claimed keys with the Lua scripts of
// package scripts: run directly or given to a helper.
package scriptdone

import (
	"encoding/json"
	"net/http"

	"github.com/redis/go-redis/v9"

	"scriptdone/scripts"
)

type server struct{ rdb *redis.Client }

type receipt struct{ ID string }

func (s *server) charge(r *http.Request) (receipt, error) { return receipt{}, nil }

// run runs the script its caller gives it.
func (s *server) run(r *http.Request, script *redis.Script, keys []string, args ...any) error {
	return script.Run(r.Context(), s.rdb, keys, args...).Err()
}

func (s *server) pay(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := scripts.Claim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
	if err != nil || won == 0 {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	scripts.Done.Run(r.Context(), s.rdb, []string{key}, 86400) // want `SET of key to "done" marks the key claimed by Run at scriptdone.go:27 completed without the response`
	json.NewEncoder(w).Encode(rc)
}

func (s *server) payHelper(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := scripts.Claim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
	if err != nil || won == 0 {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	s.run(r, scripts.Done, []string{key}, 86400) // want `SET of key to "done" marks the key claimed by Run at scriptdone.go:44 completed without the response`
	json.NewEncoder(w).Encode(rc)
}

func (s *server) paySaved(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := scripts.Claim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
	if err != nil || won == 0 {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	rc, err := s.charge(r)
	if err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(rc)
	s.run(r, scripts.Save, []string{key}, body, 86400)
	w.Write(body)
}
