package releaseonerror

import (
	"context"
	"errors"
	"net/http"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// claimScript sets the key only when it is absent and says whether it did.
var claimScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], 'processing', 'PX', ARGV[1])
return 1`)

type luaServer struct{ rdb *redis.Client }

func (s *luaServer) charge(ctx context.Context) error { return nil }

func (s *luaServer) serveCharge(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := claimScript.Run(r.Context(), s.rdb, []string{key}, time.Minute.Milliseconds()).Int()
	if err != nil {
		http.Error(w, "unavailable", 503)
		return
	}
	if ok == 0 {
		http.Error(w, "duplicate", 409)
		return
	}
	if err := s.charge(r.Context()); err != nil {
		http.Error(w, "charge failed", 502) // want `this 502 response leaves the key claimed by Run at lua.go:26 held`
		return
	}
	s.rdb.Set(r.Context(), key, "done", 24*time.Hour)
	w.WriteHeader(201)
}

// The same claim, and the key deleted when the charge fails.
func (s *luaServer) serveChargeReleased(w http.ResponseWriter, r *http.Request) {
	key := "idem:" + r.Header.Get("Idempotency-Key")
	ok, err := claimScript.Run(r.Context(), s.rdb, []string{key}, time.Minute.Milliseconds()).Int()
	if err != nil {
		http.Error(w, "unavailable", 503)
		return
	}
	if ok == 0 {
		http.Error(w, "duplicate", 409)
		return
	}
	if err := s.charge(r.Context()); err != nil {
		s.rdb.Del(r.Context(), key)
		http.Error(w, "charge failed", 502)
		return
	}
	s.rdb.Set(r.Context(), key, "done", 24*time.Hour)
	w.WriteHeader(201)
}

// A SET NX inside a script given to Eval, released by a compare-and-delete
// script.
const luaSetNX = `return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])`

var luaUnlock = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

func consumeEval(ctx context.Context, rdb *redis.Client, id, msg string) error {
	key := "dedup:" + id
	err := rdb.Eval(ctx, luaSetNX, []string{key}, "processing", 60000).Err()
	if errors.Is(err, redis.Nil) {
		return nil // held: the script returned SET NX's nil
	}
	if err != nil {
		return err
	}
	if err := send(ctx, msg); err != nil {
		return err // want `this error return leaves the key claimed by Eval at lua.go:76 held`
	}
	return nil
}

func consumeEvalUnlocked(ctx context.Context, rdb *redis.Client, id, msg string) error {
	key := "dedup:" + id
	err := rdb.Eval(ctx, luaSetNX, []string{key}, "processing", 60000).Err()
	if errors.Is(err, redis.Nil) {
		return nil // held: the script returned SET NX's nil
	}
	if err != nil {
		return err
	}
	if err := send(ctx, msg); err != nil {
		luaUnlock.Run(ctx, rdb, []string{key}, "processing")
		return err
	}
	return nil
}

// redigo: the count of keys comes first, then the keys among the
// arguments.
var redigoClaim = redigo.NewScript(1, `
local v = redis.call("GET", KEYS[1])
if v then return 0 end
redis.call("SET", KEYS[1], "in_progress", "EX", 300)
return 1`)

func consumeRedigo(conn redigo.Conn, id, msg string) error {
	won, err := redigo.Int(redigoClaim.Do(conn, "job:"+id))
	if err != nil {
		return err
	}
	if won == 0 {
		return nil
	}
	if err := validate(msg); err != nil {
		return err // want `this error return leaves the key claimed by SET NX at lua.go:114 held`
	}
	conn.Do("DEL", "job:"+id)
	return nil
}

// rueidis: a SETNX in the script.
var rueidisClaim = rueidis.NewLuaScript(`return redis.call('SETNX', KEYS[1], ARGV[1])`)

func consumeRueidis(ctx context.Context, client rueidis.Client, id, msg string) error {
	key := "evt:" + id
	n, err := rueidisClaim.Exec(ctx, client, []string{key}, []string{"processing"}).AsInt64()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := send(ctx, msg); err != nil {
		client.Do(ctx, client.B().Del().Key(key).Build())
		return err
	}
	return nil
}

// A rate limiter's INCR script is no claim.
var limitScript = redis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n`)

func consumeLimited(ctx context.Context, rdb *redis.Client, id, msg string) error {
	n, err := limitScript.Run(ctx, rdb, []string{"idem:" + id}, 60).Int()
	if err != nil {
		return err
	}
	if n > 10 {
		return errBusy
	}
	return send(ctx, msg)
}
