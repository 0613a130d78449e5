package luaembed

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RefundEvent asks for a charge to be refunded; the broker delivers it at
// least once.
type RefundEvent struct {
	EventID  string
	ChargeID string
}

// Refunder gives money back.
type Refunder interface {
	Refund(ctx context.Context, chargeID string) error
}

// Refunds consumes refund events. It loads its scripts into Redis once
// and keeps their SHAs.
type Refunds struct {
	rdb         *redis.Client
	refunder    Refunder
	claimSHA    string
	completeSHA string
}

// NewRefunds loads the scripts with SCRIPT LOAD.
func NewRefunds(ctx context.Context, rdb *redis.Client, refunder Refunder) (*Refunds, error) {
	claimSHA, err := rdb.ScriptLoad(ctx, claimLua).Result()
	if err != nil {
		return nil, fmt.Errorf("load claim script: %w", err)
	}
	completeSHA, err := rdb.ScriptLoad(ctx, string(completeLua)).Result()
	if err != nil {
		return nil, fmt.Errorf("load complete script: %w", err)
	}
	return &Refunds{rdb: rdb, refunder: refunder, claimSHA: claimSHA, completeSHA: completeSHA}, nil
}

// reload loads the complete script again after Redis lost its cache.
func (r *Refunds) reload(ctx context.Context) error {
	var err error
	r.completeSHA, err = r.rdb.ScriptLoad(ctx, string(completeLua)).Result()
	return err
}

// Handle asks Redis whether the event was refunded, refunds, and marks
// it with the complete script by its SHA: the EXISTS and the script are
// two steps, and two deliveries that both miss both refund.
//
// corpus: bug checkthenact
// modelled on: mahin273/RateMesh internal/ratelimit/sliding_window.go (a script loaded with ScriptLoad in the constructor and run by EvalSha with the SHA kept in a field)
func (r *Refunds) Handle(ctx context.Context, ev RefundEvent) error {
	key := "refund:" + ev.EventID
	n, err := r.rdb.Exists(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if err := r.refunder.Refund(ctx, ev.ChargeID); err != nil {
		return err
	}
	err = r.rdb.EvalSha(ctx, r.completeSHA, []string{key}, ev.ChargeID, 30*24*3600).Err()
	if err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") {
		if err := r.reload(ctx); err != nil {
			return err
		}
		err = r.rdb.EvalSha(ctx, r.completeSHA, []string{key}, ev.ChargeID, 30*24*3600).Err()
	}
	return err
}

// HandleOnce claims the event by SHA before it refunds, and deletes the
// claim when the refund fails so that the redelivery refunds.
//
// corpus: ok checkthenact
// modelled on: mahin273/RateMesh internal/ratelimit/sliding_window.go (a script loaded with ScriptLoad in the constructor and run by EvalSha with the SHA kept in a field)
func (r *Refunds) HandleOnce(ctx context.Context, ev RefundEvent) error {
	key := "refund:" + ev.EventID
	took, err := r.rdb.EvalSha(ctx, r.claimSHA, []string{key}, "refunding", 30*24*3600).Int()
	if err != nil {
		return err
	}
	if took == 0 {
		return nil
	}
	if err := r.refunder.Refund(ctx, ev.ChargeID); err != nil {
		r.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return r.rdb.EvalSha(ctx, r.completeSHA, []string{key}, ev.ChargeID, 30*24*3600).Err()
}
