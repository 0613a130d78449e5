// Package subscriptions renews and changes customers' plans: Stripe for
// money, bun on PostgreSQL for the plan records, Redis for locks and for
// the Idempotency-Keys of the plan-change endpoints.
package subscriptions

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82"
	"github.com/uptrace/bun"
)

// ErrLocked says another worker holds the subscription.
var ErrLocked = errors.New("subscriptions: subscription locked")

// Subscription is one row of subscriptions.
type Subscription struct {
	bun.BaseModel `bun:"table:subscriptions"`

	ID          string    `bun:"id,pk"`
	CustomerID  string    `bun:"customer_id"`
	PlanID      string    `bun:"plan_id"`
	AmountMinor int64     `bun:"amount_minor"`
	Currency    string    `bun:"currency"`
	PeriodEnd   time.Time `bun:"period_end"`
	Status      string    `bun:"status"`
}

// Activation is one row of plan_activations, the claim of a plan change
// under a client's key.
type Activation struct {
	bun.BaseModel `bun:"table:plan_activations"`

	Key            string `bun:"key,pk"`
	SubscriptionID string `bun:"subscription_id"`
	Status         string `bun:"status"`
	ResponseCode   int    `bun:"response_code"`
	ResponseBody   []byte `bun:"response_body"`
}

// Provisioner turns a plan's features on for a subscription.
type Provisioner interface {
	Provision(ctx context.Context, subID, planID string) (map[string]any, error)
}

// Locker takes and gives back named locks.
type Locker interface {
	TryLock(ctx context.Context, key, token string, ttl time.Duration) (bool, error)
	Unlock(ctx context.Context, key, token string) error
}

// Service renews and changes subscriptions.
type Service struct {
	db         *bun.DB
	stripe     *stripe.Client
	rdb        *redis.Client
	locks      Locker
	prov       Provisioner
	http       *http.Client
	billingURL string
	log        *slog.Logger
}

// NewService wires a Service.
func NewService(db *bun.DB, sc *stripe.Client, rdb *redis.Client, prov Provisioner, billingURL string) *Service {
	return &Service{
		db: db, stripe: sc, rdb: rdb, locks: redisLocker{rdb: rdb}, prov: prov,
		http: http.DefaultClient, billingURL: billingURL, log: slog.Default(),
	}
}

// chargeOptions is one charge of a subscription.
type chargeOptions struct {
	Customer       string
	AmountMinor    int64
	Currency       string
	Description    string
	IdempotencyKey string
}

// charge creates a confirmed PaymentIntent as opts says.
func (s *Service) charge(ctx context.Context, opts chargeOptions) (*stripe.PaymentIntent, error) {
	params := &stripe.PaymentIntentCreateParams{
		Customer:    stripe.String(opts.Customer),
		Amount:      stripe.Int64(opts.AmountMinor),
		Currency:    stripe.String(opts.Currency),
		Description: stripe.String(opts.Description),
		Confirm:     stripe.Bool(true),
	}
	params.SetIdempotencyKey(opts.IdempotencyKey)
	return s.stripe.V1PaymentIntents.Create(ctx, params)
}

// redisLocker implements Locker with SET NX PX and a compare-and-delete.
type redisLocker struct{ rdb *redis.Client }

var unlockScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

func (l redisLocker) TryLock(ctx context.Context, key, token string, ttl time.Duration) (bool, error) {
	err := l.rdb.SetArgs(ctx, key, token, redis.SetArgs{Mode: "NX", TTL: ttl}).Err()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	return err == nil, err
}

func (l redisLocker) Unlock(ctx context.Context, key, token string) error {
	return unlockScript.Run(ctx, l.rdb, []string{key}, token).Err()
}
