package luaembed

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Wallet credits reward points.
type Wallet interface {
	Credit(ctx context.Context, user string, points int) error
}

// Marks is the repository of reward marks: one Redis key per rewarded
// order, read and written by the scripts of lua/.
type Marks struct {
	rdb *redis.Client
}

// Rewarded reports whether the order's mark is there, with the lookup
// script.
func (m *Marks) Rewarded(ctx context.Context, orderID string) (bool, error) {
	_, err := lookupScript.Run(ctx, m.rdb, []string{"reward:" + orderID}).Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Mark writes the order's mark.
func (m *Marks) Mark(ctx context.Context, orderID, user string) error {
	return m.rdb.Set(ctx, "reward:"+orderID, user, 90*24*time.Hour).Err()
}

// Reserve takes the order's mark with the SET NX script; false when
// another delivery holds it.
func (m *Marks) Reserve(ctx context.Context, orderID, user string) (bool, error) {
	err := reserveScript.Run(ctx, m.rdb, []string{"reward:" + orderID}, user, (90 * 24 * time.Hour).Milliseconds()).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

// Drop gives the order's mark back.
func (m *Marks) Drop(ctx context.Context, orderID, user string) error {
	return releaseScript.Run(ctx, m.rdb, []string{"reward:" + orderID}, user).Err()
}

// Rewards credits points for delivered orders.
type Rewards struct {
	marks  *Marks
	wallet Wallet
}

// OnDelivered asks the repository whether the order was rewarded,
// credits, and marks it: the lookup script and the SET are two steps.
//
// corpus: bug checkthenact
// modelled on: AsynqLab/asynq internal/script/script.go (scripts read by name from an embed.FS and made in init)
func (r *Rewards) OnDelivered(ctx context.Context, orderID, user string, points int) error {
	done, err := r.marks.Rewarded(ctx, orderID)
	if err != nil {
		return err
	}
	if done {
		return nil
	}
	if err := r.wallet.Credit(ctx, user, points); err != nil {
		return err
	}
	return r.marks.Mark(ctx, orderID, user)
}

// OnDeliveredReserved reserves the mark with the SET NX script first and
// gives it back when the credit fails.
//
// corpus: ok checkthenact
// modelled on: AsynqLab/asynq internal/script/script.go (scripts read by name from an embed.FS and made in init)
func (r *Rewards) OnDeliveredReserved(ctx context.Context, orderID, user string, points int) error {
	won, err := r.marks.Reserve(ctx, orderID, user)
	if err != nil || !won {
		return err
	}
	if err := r.wallet.Credit(ctx, user, points); err != nil {
		r.marks.Drop(context.WithoutCancel(ctx), orderID, user)
		return err
	}
	return nil
}
