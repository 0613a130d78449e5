package luaembed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Bank moves money out.
type Bank interface {
	Transfer(ctx context.Context, account string, cents int64) (Transfer, error)
}

// Transfer is what the bank answers.
type Transfer struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// Payout asks for money to be sent to an account, once per request ID.
type Payout struct {
	RequestID string `json:"request_id"`
	Account   string `json:"account"`
	Cents     int64  `json:"cents"`
}

// Payouts sends payouts. Its scripts are made by NewPayouts and kept in
// fields.
type Payouts struct {
	rdb      *redis.Client
	bank     Bank
	claim    *redis.Script
	complete *redis.Script
}

// NewPayouts makes the payout service and its scripts.
func NewPayouts(rdb *redis.Client, bank Bank) *Payouts {
	return &Payouts{
		rdb:      rdb,
		bank:     bank,
		claim:    redis.NewScript(claimLua),
		complete: redis.NewScript(string(completeLua)),
	}
}

// Send looks the request up, transfers, and stores the transfer with the
// complete script. The GET and the script are two round trips: two
// retries of one payout that both find nothing both transfer.
//
// corpus: bug checkthenact
// modelled on: boxgo/box client/redis/script.go (a *redis.Script kept in a struct field, made by its constructor)
func (p *Payouts) Send(ctx context.Context, po Payout) (Transfer, error) {
	key := "payout:" + po.RequestID
	if raw, err := p.rdb.Get(ctx, key).Bytes(); err == nil {
		var done Transfer
		if err := json.Unmarshal(raw, &done); err != nil {
			return Transfer{}, err
		}
		return done, nil
	} else if !errors.Is(err, redis.Nil) {
		return Transfer{}, err
	}
	t, err := p.bank.Transfer(ctx, po.Account, po.Cents)
	if err != nil {
		return Transfer{}, err
	}
	body, err := json.Marshal(t)
	if err != nil {
		return Transfer{}, err
	}
	if err := p.complete.Run(ctx, p.rdb, []string{key}, body, int((7 * 24 * time.Hour).Seconds())).Err(); err != nil {
		return Transfer{}, fmt.Errorf("store payout: %w", err)
	}
	return t, nil
}

// SendClaimed takes the request with the claim script, whose GET and SET
// run as one step, before it transfers; a failed transfer gives the key
// back, and the transfer is stored when it succeeds.
//
// corpus: ok checkthenact
// modelled on: boxgo/box client/redis/script.go (a *redis.Script kept in a struct field, made by its constructor)
func (p *Payouts) SendClaimed(ctx context.Context, po Payout) (Transfer, error) {
	key := "payout:" + po.RequestID
	took, err := p.claim.Run(ctx, p.rdb, []string{key}, "in_progress", 600).Int()
	if err != nil {
		return Transfer{}, err
	}
	if took == 0 {
		return Transfer{}, ErrInFlight
	}
	t, err := p.bank.Transfer(ctx, po.Account, po.Cents)
	if err != nil {
		releaseScript.Run(context.WithoutCancel(ctx), p.rdb, []string{key}, "in_progress")
		return Transfer{}, err
	}
	body, err := json.Marshal(t)
	if err != nil {
		releaseScript.Run(context.WithoutCancel(ctx), p.rdb, []string{key}, "in_progress")
		return Transfer{}, err
	}
	if err := p.complete.Run(ctx, p.rdb, []string{key}, body, int((7 * 24 * time.Hour).Seconds())).Err(); err != nil {
		return Transfer{}, fmt.Errorf("store payout: %w", err)
	}
	return t, nil
}

// ErrInFlight answers a payout that another request holds or finished.
var ErrInFlight = errors.New("luaembed: payout in flight or done")
