// Package dedup delivers notifications to devices and webhooks at most
// once per message, whichever broker redelivers them: it claims each
// message in Redis (a swapped-in marker, a sliding window of recent IDs
// in a sorted set, the scripts of package claims) or in Postgres.
package dedup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"example.com/corpus/wave6b/claims"
)

// Pusher delivers a notification to a device or an endpoint.
type Pusher interface {
	Deliver(ctx context.Context, id string, body []byte) error
}

// Worker delivers queued notifications.
type Worker struct {
	rdb    *redis.Client
	pool   *redigo.Pool
	rue    rueidis.Client
	db     *sql.DB
	pusher Pusher
}

// window is the sorted set of message IDs seen in the last hour.
const window = "notify:window"

// Deliver marks the message with GETSET: no marker before means this
// worker is the first. A failed push returns with the marker left in
// place, so the broker's redelivery is dropped as a duplicate.
//
// corpus: bug releaseonerror
// modelled on: zeromicro/go-zero core/stores/redis/redis.go (GetSetCtx, redis.Nil answered as no old value)
func (w *Worker) Deliver(ctx context.Context, id string, body []byte) error {
	key := "notify:msg:" + id
	old, err := w.rdb.GetSet(ctx, key, "sending").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("mark %s: %w", id, err)
	}
	if err == nil {
		return nil // marked before, state old
	}
	_ = old
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		return fmt.Errorf("push %s: %w", id, err)
	}
	return w.rdb.Set(ctx, key, "sent", 24*time.Hour).Err()
}

// DeliverReleased is Deliver giving the marker back when the push fails.
//
// corpus: ok releaseonerror
// modelled on: zeromicro/go-zero core/stores/redis/redis.go (GetSetCtx, redis.Nil answered as no old value)
func (w *Worker) DeliverReleased(ctx context.Context, id string, body []byte) error {
	key := "notify:msg:" + id
	_, err := w.rdb.GetSet(ctx, key, "sending").Result()
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, redis.Nil):
		return fmt.Errorf("mark %s: %w", id, err)
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), key)
		return fmt.Errorf("push %s: %w", id, err)
	}
	return w.rdb.Set(ctx, key, "sent", 24*time.Hour).Err()
}

// BindDevice swaps the user's current device token in and unregisters
// the one it replaces: GETSET as a swap, not a claim.
//
// corpus: ok releaseonerror
// modelled on: oauth2-proxy/oauth2-proxy pkg/sessions/redis/redis_store.go (GetSet of the user's session mapping, the previous session evicted)
func (w *Worker) BindDevice(ctx context.Context, user, token string) error {
	prev, err := w.rdb.GetSet(ctx, "notify:device:"+user, token).Result()
	if err != nil && err != redis.Nil {
		return fmt.Errorf("bind device: %w", err)
	}
	if prev != "" && prev != token {
		if err := w.rdb.Del(ctx, "notify:token:"+prev).Err(); err != nil {
			return fmt.Errorf("unregister %s: %w", prev, err)
		}
	}
	return nil
}

// PushRecent asks the window whether the message was seen, pushes, and
// adds it after: two redeliveries both find no score and both push.
//
// corpus: bug checkthenact
// modelled on: zeromicro/go-zero core/stores/redis/redis.go (ZscoreCtx and ZaddCtx on one sorted set)
func (w *Worker) PushRecent(ctx context.Context, id string, body []byte) error {
	_, err := w.rdb.ZScore(ctx, window, id).Result()
	if err == nil {
		return nil
	}
	if !errors.Is(err, redis.Nil) {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		return err
	}
	return w.rdb.ZAdd(ctx, window, redis.Z{Score: float64(time.Now().Unix()), Member: id}).Err()
}

// PushAdded lets ZADD NX's count decide who pushes: only the caller that
// added the ID; a failed push takes the ID out of the window again.
//
// corpus: ok checkthenact
// modelled on: zeromicro/go-zero core/stores/redis/redis.go (ZaddnxFloatCtx, whether ZADD NX added)
func (w *Worker) PushAdded(ctx context.Context, id string, body []byte) error {
	if _, err := w.rdb.ZScore(ctx, window, id).Result(); err == nil {
		return nil // a fast answer; the ZADD below decides
	}
	added, err := w.rdb.ZAddNX(ctx, window, redis.Z{Score: float64(time.Now().Unix()), Member: id}).Result()
	if err != nil || added == 0 {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		w.rdb.ZRem(context.WithoutCancel(ctx), window, id)
		return err
	}
	return nil
}

// PushWindowed adds the ID to the window first and pushes when it was
// new; a failed push leaves the ID there, and the redelivery is dropped.
//
// corpus: bug releaseonerror
// modelled on: zeromicro/go-zero core/stores/redis/redis.go (ZaddnxFloatCtx, whether ZADD NX added)
func (w *Worker) PushWindowed(ctx context.Context, id string, body []byte) error {
	added, err := w.rdb.ZAddNX(ctx, window, redis.Z{Score: float64(time.Now().Unix()), Member: id}).Result()
	if err != nil {
		return err
	}
	if added == 0 {
		return nil
	}
	return w.pusher.Deliver(ctx, id, body)
}

// Hook sends a webhook once per delivery, claimed with the script of
// package claims; a failed send leaves the delivery's key held.
//
// corpus: bug releaseonerror
// modelled on: go-redsync/redsync redis/redigo/redigo.go (scripts made once with redigo's NewScript, run on a pooled conn)
func (w *Worker) Hook(ctx context.Context, id string, body []byte) error {
	conn := w.pool.Get()
	defer conn.Close()
	key := "notify:hook:" + id
	won, err := redigo.Int(claims.Delivery.Do(conn, key, "sending", 3600))
	if err != nil {
		return err
	}
	if won == 0 {
		return nil
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		return err
	}
	_, err = conn.Do("SET", key, "sent", "EX", 86400)
	return err
}

// Receipt records a read receipt once, claimed with the rueidis script
// of package claims, and deletes the key when the push fails.
//
// corpus: ok releaseonerror
// modelled on: redis/rueidis lua.go (NewLuaScript kept in a variable, Exec with keys and args)
func (w *Worker) Receipt(ctx context.Context, id string, body []byte) error {
	key := "notify:receipt:" + id
	n, err := claims.Receipt.Exec(ctx, w.rue, []string{key}, []string{"sending"}).AsInt64()
	if err != nil || n == 0 {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		w.rue.Do(context.WithoutCancel(ctx), w.rue.B().Del().Key(key).Build())
		return err
	}
	return w.rue.Do(ctx, w.rue.B().Set().Key(key).Value("sent").Build()).Error()
}

// The statements of the Postgres inbox, kept once.
var (
	claimInbox = `INSERT INTO notify_inbox (message_id, status) VALUES ($1, 'processing') ` +
		`ON CONFLICT (message_id) DO NOTHING`
	finishInbox  = `UPDATE notify_inbox SET status = 'done' WHERE message_id = $1`
	releaseInbox = `DELETE FROM notify_inbox WHERE message_id = $1`
)

// Email claims the message with the upsert kept in claimInbox; a failed
// send returns with the row in progress.
//
// corpus: bug releaseonerror
// modelled on: formancehq/ledger pkg/storage/sqlstorage/ledger/migrates/15-add-idempotency-table/sqlite.sql (an idempotency table keyed by the request key)
func (w *Worker) Email(ctx context.Context, id string, body []byte) error {
	res, err := w.db.ExecContext(ctx, claimInbox, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		return err
	}
	_, err = w.db.ExecContext(ctx, finishInbox, id)
	return err
}

// EmailReleased is Email deleting the row when the send fails.
//
// corpus: ok releaseonerror
// modelled on: formancehq/ledger pkg/storage/sqlstorage/ledger/migrates/15-add-idempotency-table/sqlite.sql (an idempotency table keyed by the request key)
func (w *Worker) EmailReleased(ctx context.Context, id string, body []byte) error {
	res, err := w.db.ExecContext(ctx, claimInbox, id)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		_, _ = w.db.ExecContext(context.WithoutCancel(ctx), releaseInbox, id)
		return err
	}
	_, err = w.db.ExecContext(ctx, finishInbox, id)
	return err
}

// Call delivers a message within the caller's deadline and, when the
// deadline passes first, gives the marker back with the same context:
// the DEL fails at once, and the marker stays until its TTL.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis example/del-keys-without-ttl/main.go (commands take the caller's context and fail once it is done)
func (w *Worker) Call(ctx context.Context, id string, body []byte) error {
	key := "notify:call:" + id
	ok, err := w.rdb.SetNX(ctx, key, "sending", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			w.rdb.Del(ctx, key)
			return err
		}
		w.rdb.Del(ctx, key)
		return err
	}
	return w.rdb.Set(ctx, key, "sent", 24*time.Hour).Err()
}

// CallDetached is Call releasing with a context cut loose from the
// caller's deadline.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis example/del-keys-without-ttl/main.go (commands take the caller's context and fail once it is done)
func (w *Worker) CallDetached(ctx context.Context, id string, body []byte) error {
	key := "notify:call:" + id
	ok, err := w.rdb.SetNX(ctx, key, "sending", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		w.rdb.Del(rctx, key)
		return err
	}
	return w.rdb.Set(ctx, key, "sent", 24*time.Hour).Err()
}

// Approve records an approval request once, its SET NX queued on a
// transaction pipeline beside a counter; the reply read after Exec
// says whether this caller created it. A failed notification leaves it
// pending, and the retry finds it there.
//
// corpus: bug releaseonerror
// modelled on: redis/go-redis example/del-keys-without-ttl/main.go (a pipeline's commands queued, sent by Exec, their replies read after)
func (w *Worker) Approve(ctx context.Context, id string, body []byte) error {
	pipe := w.rdb.TxPipeline()
	created := pipe.SetNX(ctx, "notify:approval:"+id, body, 24*time.Hour)
	pipe.Incr(ctx, "notify:approvals")
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("queue approval %s: %w", id, err)
	}
	ok, err := created.Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil
	}
	return w.pusher.Deliver(ctx, id, body)
}

// ApproveReleased is Approve deleting the request when the
// notification fails.
//
// corpus: ok releaseonerror
// modelled on: redis/go-redis example/del-keys-without-ttl/main.go (a pipeline's commands queued, sent by Exec, their replies read after)
func (w *Worker) ApproveReleased(ctx context.Context, id string, body []byte) error {
	pipe := w.rdb.TxPipeline()
	created := pipe.SetNX(ctx, "notify:approval:"+id, body, 24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("queue approval %s: %w", id, err)
	}
	if !created.Val() {
		return nil
	}
	if err := w.pusher.Deliver(ctx, id, body); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), "notify:approval:"+id)
		return err
	}
	return nil
}
