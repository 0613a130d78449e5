package notify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// SendCampaign sends a campaign's notification to a user once; the
// membership check rides in a pipeline with the key's expiry.
//
// corpus: bug checkthenact
// modelled on: yongs2/golang-exercise 10.go-redis/10.txpipelined/example.go (commands queued on a pipeline and read after Exec)
func (n *Notifier) SendCampaign(ctx context.Context, nt Notification) error {
	key := "campaign:sent:" + nt.CampaignID
	pipe := n.rdb.Pipeline()
	member := pipe.SIsMember(ctx, key, nt.UserID)
	pipe.Expire(ctx, key, 30*24*time.Hour)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if member.Val() {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return err
	}
	return n.rdb.SAdd(ctx, key, nt.UserID).Err()
}

// SendCampaignOnce sends a campaign's notification to a user once: the
// SADD's count says whether this call added the user.
//
// corpus: ok checkthenact
// modelled on: rfyiamcool/redis_unique_queue README.md (a set that keeps a queue free of duplicates)
func (n *Notifier) SendCampaignOnce(ctx context.Context, nt Notification) error {
	key := "campaign:sent:" + nt.CampaignID
	added, err := n.rdb.SAdd(ctx, key, nt.UserID).Result()
	if err != nil {
		return fmt.Errorf("sadd: %w", err)
	}
	if added == 0 {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rdb.SRem(context.WithoutCancel(ctx), key, nt.UserID)
		return err
	}
	return nil
}

// SendReceipt sends an order receipt once per order, tracked in the
// user's receipts hash (go-redis v8).
//
// corpus: bug checkthenact
// modelled on: yushion-yang/myredis test/main.go (go-redis command results read one by one)
func (n *Notifier) SendReceipt(ctx context.Context, nt Notification, orderID string) error {
	key := "receipts:" + nt.UserID
	sent, err := n.rdb8.HExists(ctx, key, orderID).Result()
	if err != nil {
		return fmt.Errorf("hexists: %w", err)
	}
	if sent {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return err
	}
	return n.rdb8.HSet(ctx, key, orderID, time.Now().Unix()).Err()
}

// SendReceiptOnce sends an order receipt once per order: HSETNX claims the
// order's field, and a failed send gives it back.
//
// corpus: ok checkthenact
// modelled on: yushion-yang/myredis test/main.go (go-redis command results read one by one)
func (n *Notifier) SendReceiptOnce(ctx context.Context, nt Notification, orderID string) error {
	key := "receipts:" + nt.UserID
	claimed, err := n.rdb8.HSetNX(ctx, key, orderID, time.Now().Unix()).Result()
	if err != nil {
		return fmt.Errorf("hsetnx: %w", err)
	}
	if !claimed {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rdb8.HDel(context.WithoutCancel(ctx), key, orderID)
		return err
	}
	return nil
}

// deliveryState is the JSON kept per notification.
type deliveryState struct {
	Delivered bool      `json:"delivered"`
	At        time.Time `json:"at"`
	Attempts  int       `json:"attempts"`
}

// Deliver sends a notification once, keeping its delivery state as a JSON
// blob.
//
// corpus: bug checkthenact
// modelled on: theopenlane/core pkg/entitlements/README.md (a Redis value read, redis.Nil told apart, the result written back)
func (n *Notifier) Deliver(ctx context.Context, nt Notification) error {
	key := "delivery:" + nt.ID
	var st deliveryState
	raw, err := n.rdb.Get(ctx, key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
	case err != nil:
		return fmt.Errorf("get state: %w", err)
	default:
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("decode state: %w", err)
		}
	}
	if st.Delivered {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return err
	}
	st = deliveryState{Delivered: true, At: time.Now(), Attempts: st.Attempts + 1}
	blob, _ := json.Marshal(st)
	return n.rdb.Set(ctx, key, blob, n.ttl).Err()
}

// PrefsFor returns a user's preferences, cached in Redis for ten minutes;
// two requests that miss together both load and store the same value.
//
// corpus: ok checkthenact
// modelled on: theopenlane/core pkg/entitlements/README.md (CheckFeatureTuple: Redis first, the source on a miss, the answer cached with a TTL)
func (n *Notifier) PrefsFor(ctx context.Context, userID string) (*Prefs, error) {
	key := "prefs:" + userID
	raw, err := n.rdb.Get(ctx, key).Bytes()
	if err == nil {
		var p Prefs
		if err := json.Unmarshal(raw, &p); err == nil {
			return &p, nil
		}
	} else if !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("get prefs: %w", err)
	}
	p, err := n.loadPref(ctx, userID)
	if err != nil {
		return nil, err
	}
	blob, _ := json.Marshal(p)
	if err := n.rdb.Set(ctx, key, blob, 10*time.Minute).Err(); err != nil {
		n.log.WarnContext(ctx, "cache prefs", "user", userID, "err", err)
	}
	return p, nil
}

// CountSend bumps the user's daily send counter unless the notification
// was counted already, under WATCH so that a concurrent change aborts the
// transaction.
//
// corpus: ok checkthenact
// modelled on: spumant/Go-basic 10-Redis/04-Transaction.go (Watch with a callback that reads, then TxPipelined writes)
func (n *Notifier) CountSend(ctx context.Context, nt Notification) error {
	mark := "counted:" + nt.ID
	counter := "sends:" + nt.UserID + ":" + time.Now().UTC().Format("2006-01-02")
	txf := func(tx *redis.Tx) error {
		seen, err := tx.Exists(ctx, mark).Result()
		if err != nil {
			return err
		}
		if seen == 1 {
			return nil
		}
		_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, mark, 1, 48*time.Hour)
			pipe.Incr(ctx, counter)
			pipe.Expire(ctx, counter, 48*time.Hour)
			return nil
		})
		return err
	}
	for range 3 {
		err := n.rdb.Watch(ctx, txf, mark)
		if !errors.Is(err, redis.TxFailedErr) {
			return err
		}
	}
	return redis.TxFailedErr
}

// SendWelcome sends the welcome e-mail once per user (redigo).
//
// corpus: bug checkthenact
// modelled on: LinFengMing/liwenzhou_go_web_advanced_course main.go (a key read, then written after the work)
func (n *Notifier) SendWelcome(ctx context.Context, nt Notification) error {
	conn, err := n.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "welcome:" + nt.UserID
	exists, err := redigo.Bool(conn.Do("EXISTS", key))
	if err != nil {
		return fmt.Errorf("exists: %w", err)
	}
	if exists {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return err
	}
	_, err = conn.Do("SET", key, time.Now().Unix(), "EX", 365*24*3600)
	return err
}

// SendOptedIn sends a campaign notification to a user who opted in. The
// opt-in set is only read; the send is claimed by the SADD count on the
// campaign's own set.
//
// corpus: ok checkthenact
// modelled on: denkhaus/go-store set.go (set membership and add helpers)
func (n *Notifier) SendOptedIn(ctx context.Context, nt Notification) error {
	in, err := n.rue.Do(ctx, n.rue.B().Sismember().Key("optin:"+nt.CampaignID).Member(nt.UserID).Build()).AsBool()
	if err != nil {
		return fmt.Errorf("sismember: %w", err)
	}
	if !in {
		return nil
	}
	sentKey := "campaign:sent:" + nt.CampaignID
	added, err := n.rue.Do(ctx, n.rue.B().Sadd().Key(sentKey).Member(nt.UserID).Build()).AsInt64()
	if err != nil {
		return fmt.Errorf("sadd: %w", err)
	}
	if added == 0 {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rue.Do(context.WithoutCancel(ctx), n.rue.B().Srem().Key(sentKey).Member(nt.UserID).Build())
		return err
	}
	return nil
}

// SendDigest sends the user's daily digest once per day (rueidis).
//
// corpus: bug checkthenact
// modelled on: distributed-infras/messenger prototype/redis/main.go (GET of a key, then SET of the same key)
func (n *Notifier) SendDigest(ctx context.Context, nt Notification) error {
	key := "digest:last:" + nt.UserID
	today := time.Now().UTC().Format("2006-01-02")
	last, err := n.rue.Do(ctx, n.rue.B().Get().Key(key).Build()).ToString()
	if err != nil && !rueidis.IsRedisNil(err) {
		return fmt.Errorf("get last digest: %w", err)
	}
	if last == today {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return err
	}
	return n.rue.Do(ctx, n.rue.B().Set().Key(key).Value(today).ExSeconds(48*3600).Build()).Error()
}
