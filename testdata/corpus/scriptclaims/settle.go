// Package scriptclaims settles merchant batches and answers payout
// requests once, with the Lua scripts of package scripts: run directly
// and through a helper of the repository that is given the script.
package scriptclaims

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/redis/go-redis/v9"

	"example.com/corpus/scriptclaims/scripts"
)

// Bank moves the money.
type Bank interface {
	Settle(ctx context.Context, batchID string) error
	Payout(ctx context.Context, account string, cents int64) (Payout, error)
}

// Payout is the bank's answer to a payout.
type Payout struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// Settler settles each merchant batch once across workers.
type Settler struct {
	rdb  redis.UniversalClient
	bank Bank
}

// errHeld says another worker holds the batch.
var errHeld = errors.New("scriptclaims: batch held by another worker")

// runScript runs the script its caller gives it and names the operation
// in its error.
func (s *Settler) runScript(ctx context.Context, op string, script *redis.Script, keys []string, args ...any) (int64, error) {
	n, err := script.Run(ctx, s.rdb, keys, args...).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return 0, fmt.Errorf("%s: redis eval: %w", op, err)
	}
	return n, nil
}

// unlock gives the batch back with the compare-and-delete script.
func (s *Settler) unlock(ctx context.Context, key, token string) {
	scripts.Unlock.Run(context.WithoutCancel(ctx), s.rdb, []string{key}, token)
}

// SettleBatch takes the batch with the lock script of package scripts
// and settles it; a failed settlement returns with the key still held,
// so every redelivery is refused until the lease runs out.
//
// corpus: bug releaseonerror
// modelled on: go-eagle/eagle pkg/lock/luascript.go (a SET NX PX lock script and a compare-and-delete unlock script, kept apart from the code that runs them)
// modelled on: lcsin/go-itools pkg/lua/lua.go (exported Lua scripts embedded in a package of their own)
func (s *Settler) SettleBatch(ctx context.Context, batchID, token string) error {
	key := "settle:" + batchID
	err := scripts.Lock.Run(ctx, s.rdb, []string{key}, token, 300000).Err()
	if errors.Is(err, redis.Nil) {
		return errHeld
	}
	if err != nil {
		return err
	}
	if err := s.bank.Settle(ctx, batchID); err != nil {
		return fmt.Errorf("settle %s: %w", batchID, err)
	}
	return nil
}

// SettleBatchUnlocked takes the batch the same way and gives it back
// with the other package's compare-and-delete when the settlement fails.
//
// corpus: ok releaseonerror
// modelled on: XdpCs/redis-lock lua.go (luaUnlock: delete the key only while it holds the caller's token)
// modelled on: alejandro-carstens/gocache lua_scripts.go (a release-lock script: get, compare, del)
func (s *Settler) SettleBatchUnlocked(ctx context.Context, batchID, token string) error {
	key := "settle:" + batchID
	err := scripts.Lock.Run(ctx, s.rdb, []string{key}, token, 300000).Err()
	if errors.Is(err, redis.Nil) {
		return errHeld
	}
	if err != nil {
		return err
	}
	if err := s.bank.Settle(ctx, batchID); err != nil {
		s.unlock(ctx, key, token)
		return fmt.Errorf("settle %s: %w", batchID, err)
	}
	return nil
}

// ServePayout begins the request with the Begin script through
// runScript and, once paid, marks it done with the Finish script: a
// retry finds "done" and nothing of the payout to answer with.
//
// corpus: bug cacheresponse
// modelled on: hibiken/asynq internal/rdb/rdb.go (runScript(ctx, op, script *redis.Script, keys, args...) helper)
func (s *Settler) ServePayout(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := "idem:payout:" + r.Header.Get("Idempotency-Key")
	began, err := s.runScript(ctx, "begin", scripts.Begin, []string{key}, 60000)
	if err != nil || began == 0 {
		http.Error(w, "request in progress or done", http.StatusConflict)
		return
	}
	p, err := s.bank.Payout(ctx, r.URL.Query().Get("account"), 1000)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	s.runScript(ctx, "finish", scripts.Finish, []string{key}, 86400)
	json.NewEncoder(w).Encode(p)
}

// ServePayoutStored begins the request the same way and stores the
// payout it answers with under the key.
//
// corpus: ok cacheresponse
// modelled on: hibiken/asynq internal/rdb/rdb.go (runScript(ctx, op, script *redis.Script, keys, args...) helper)
func (s *Settler) ServePayoutStored(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := "idem:payout:" + r.Header.Get("Idempotency-Key")
	began, err := s.runScript(ctx, "begin", scripts.Begin, []string{key}, 60000)
	if err != nil || began == 0 {
		http.Error(w, "request in progress or done", http.StatusConflict)
		return
	}
	p, err := s.bank.Payout(ctx, r.URL.Query().Get("account"), 1000)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		http.Error(w, "payout failed", http.StatusBadGateway)
		return
	}
	body, err := json.Marshal(p)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		http.Error(w, "encode failed", http.StatusInternalServerError)
		return
	}
	s.runScript(ctx, "store", scripts.Store, []string{key}, body, 86400)
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
