// Package luaclaim takes idempotency keys and dedup markers with Lua
// scripts run on Redis: the script's test and write are one atomic step,
// and what the Go code does around the script decides whether a failure
// leaves the key held.
package luaclaim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrDuplicate is returned for work a previous delivery already did.
var ErrDuplicate = errors.New("luaclaim: duplicate")

// takeKey marks the key in progress unless it is there already; it
// returns 1 when it took it.
var takeKey = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then
	return 0
end
redis.call("SET", KEYS[1], "processing", "PX", ARGV[1])
return 1`)

// reserveNX is the same claim spelled as SET NX, returning its reply:
// nil, which go-redis gives as redis.Nil, when the key is held.
const reserveNX = `return redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2])`

// finishKey marks the key done; it keeps no response.
var finishKey = redis.NewScript(`
redis.call("SET", KEYS[1], "done", "EX", ARGV[1])
return 1`)

// saveReply stores the marshalled response under the key.
var saveReply = redis.NewScript(`
redis.call("SET", KEYS[1], ARGV[1], "EX", ARGV[2])
return 1`)

// dropIfOwner deletes the key only while it still holds the caller's token.
var dropIfOwner = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// lookup reads a marker.
var lookup = redis.NewScript(`return redis.call("GET", KEYS[1])`)

// Gateway charges cards.
type Gateway interface {
	Charge(ctx context.Context, account string, cents int64) (Receipt, error)
	Refund(ctx context.Context, chargeID string) error
}

// Receipt is what a charge answers.
type Receipt struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
}

// Payments serves the payment API.
type Payments struct {
	rdb *redis.Client
	gw  Gateway
}

type chargeRequest struct {
	Account string `json:"account"`
	Cents   int64  `json:"cents"`
}

// Charge takes the request's idempotency key with a script, charges, and
// stores the receipt. A failed charge answers 502 and leaves the key in
// progress, so the client's retry is refused until the TTL runs out.
//
// corpus: bug releaseonerror
// modelled on: hibiken/asynq internal/rdb/rdb.go (a Lua script that takes a uniqueness key and says whether it did)
func (p *Payments) Charge(w http.ResponseWriter, r *http.Request) {
	var req chargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	key := "idem:charge:" + r.Header.Get("Idempotency-Key")
	took, err := takeKey.Run(r.Context(), p.rdb, []string{key}, (10 * time.Minute).Milliseconds()).Int()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if took == 0 {
		http.Error(w, "request in progress or done", http.StatusConflict)
		return
	}
	rc, err := p.gw.Charge(r.Context(), req.Account, req.Cents)
	if err != nil {
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(rc)
	p.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// ChargeReleased is Charge with the key deleted when the charge fails, so
// that the retry charges again.
//
// corpus: ok releaseonerror
// modelled on: hibiken/asynq internal/rdb/rdb.go (a Lua script that takes a uniqueness key and says whether it did)
func (p *Payments) ChargeReleased(w http.ResponseWriter, r *http.Request) {
	var req chargeRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	key := "idem:charge:" + r.Header.Get("Idempotency-Key")
	took, err := takeKey.Run(r.Context(), p.rdb, []string{key}, (10 * time.Minute).Milliseconds()).Int()
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if took == 0 {
		http.Error(w, "request in progress or done", http.StatusConflict)
		return
	}
	rc, err := p.gw.Charge(r.Context(), req.Account, req.Cents)
	if err != nil {
		p.rdb.Del(context.WithoutCancel(r.Context()), key)
		http.Error(w, "charge failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(rc)
	p.rdb.Set(r.Context(), key, body, 24*time.Hour)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

// Capture reserves the key with a SET NX script, captures, and marks the
// key done with a script that stores only "done": a retry of a captured
// payment cannot be answered with its receipt.
//
// corpus: bug cacheresponse
// modelled on: HayashiNoriko/goweb 03-goredis/09-lua_script.go (a script whose one command is a SET of its argument, run by EvalSha)
func (p *Payments) Capture(w http.ResponseWriter, r *http.Request) {
	key := "idem:capture:" + r.Header.Get("Idempotency-Key")
	err := p.rdb.Eval(r.Context(), reserveNX, []string{key}, "in_progress", 600).Err()
	if errors.Is(err, redis.Nil) {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	rc, err := p.gw.Charge(r.Context(), r.URL.Query().Get("account"), 500)
	if err != nil {
		p.rdb.Del(context.WithoutCancel(r.Context()), key)
		http.Error(w, "capture failed", http.StatusBadGateway)
		return
	}
	finishKey.Run(r.Context(), p.rdb, []string{key}, 86400)
	json.NewEncoder(w).Encode(rc)
}

// CaptureSaved is Capture storing the marshalled receipt under the key.
//
// corpus: ok cacheresponse
// modelled on: HayashiNoriko/goweb 03-goredis/09-lua_script.go (a script whose one command is a SET of its argument, run by EvalSha)
func (p *Payments) CaptureSaved(w http.ResponseWriter, r *http.Request) {
	key := "idem:capture:" + r.Header.Get("Idempotency-Key")
	err := p.rdb.Eval(r.Context(), reserveNX, []string{key}, "in_progress", 600).Err()
	if errors.Is(err, redis.Nil) {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	rc, err := p.gw.Charge(r.Context(), r.URL.Query().Get("account"), 500)
	if err != nil {
		p.rdb.Del(context.WithoutCancel(r.Context()), key)
		http.Error(w, "capture failed", http.StatusBadGateway)
		return
	}
	body, _ := json.Marshal(rc)
	saveReply.Run(r.Context(), p.rdb, []string{key}, body, 86400)
	w.Write(body)
}
