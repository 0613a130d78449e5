package cacheresponse

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// luaClaim sets the key only when it is absent and says whether it did.
var luaClaim = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], 'processing', 'PX', ARGV[1])
return 1`)

// luaDone marks the key done, keeping nothing of the response.
var luaDone = redis.NewScript(`redis.call('SET', KEYS[1], 'done', 'EX', ARGV[1]) return 1`)

// luaSave stores the response it is given.
var luaSave = redis.NewScript(`
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`)

func (s *server) payLua(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := luaClaim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
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
	s.rdb.Set(r.Context(), key, "done", 24*time.Hour) // want `SET of key to "done" marks the key claimed by Run at lua.go:27 completed without the response`
	json.NewEncoder(w).Encode(rc)
}

func (s *server) payLuaDone(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := luaClaim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
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
	luaDone.Run(r.Context(), s.rdb, []string{key}, 86400) // want `SET of key to "done" marks the key claimed by Run at lua.go:44 completed without the response`
	json.NewEncoder(w).Encode(rc)
}

func (s *server) payLuaSaved(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	won, err := luaClaim.Run(r.Context(), s.rdb, []string{key}, 60000).Int()
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
	luaSave.Run(r.Context(), s.rdb, []string{key}, body, 86400)
	w.Write(body)
}
