package wave7ak

import (
	"context"
	"errors"
	"time"

	gonanoid "github.com/matoous/go-nanoid/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stripe/stripe-go/v82"
)

const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// generateID makes a 14-character nanoid.
func generateID() (string, error) {
	return gonanoid.Generate(idAlphabet, 14)
}

// Payouts pays sellers out through Stripe.
type Payouts struct {
	sc *stripe.Client
}

// PayOut retries the payment under a new nanoid on each try: a try that
// timed out after Stripe took it is paid again.
//
// corpus: bug attemptkey
// modelled on: hadronomy/lair-api internal/crypto/crypto.go (a GenerateID helper over gonanoid.Generate with an alphabet and a size)
func (p *Payouts) PayOut(ctx context.Context, seller string, cents int64) error {
	var err error
	for try := 0; try < 4; try++ {
		key, kerr := generateID()
		if kerr != nil {
			return kerr
		}
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(cents), Currency: stripe.String("eur"), Customer: stripe.String(seller)}
		params.SetIdempotencyKey(key)
		if _, err = p.sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Duration(try+1) * 500 * time.Millisecond)
	}
	return err
}

// PayOutOnce makes the nanoid once, before the tries: every try sends it.
//
// corpus: ok attemptkey
// modelled on: hadronomy/lair-api internal/crypto/crypto.go (a GenerateID helper over gonanoid.Generate with an alphabet and a size)
func (p *Payouts) PayOutOnce(ctx context.Context, seller string, cents int64) error {
	key, err := generateID()
	if err != nil {
		return err
	}
	for try := 0; try < 4; try++ {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(cents), Currency: stripe.String("eur"), Customer: stripe.String(seller)}
		params.SetIdempotencyKey(key)
		if _, err = p.sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Duration(try+1) * 500 * time.Millisecond)
	}
	return err
}

// ErrNoFreeCode is returned when every try found its code taken.
var ErrNoFreeCode = errors.New("no free short code")

// Link is a short link to a long URL.
type Link struct {
	Code string
	URL  string
}

// Shorten looks for a free short code for link: each try draws a new one
// and claims it with SETNX, so a taken code is skipped. A new code per try
// is the point here.
//
// corpus: ok attemptkey
// modelled on: ODawah/Distributed-URL-Shortener services/url_service.go (a short URL ID drawn from nanoid and stored in Redis)
func Shorten(ctx context.Context, rdb *redis.Client, link *Link) error {
	for try := 0; try < 5; try++ {
		code := gonanoid.Must(8)
		ok, err := rdb.SetNX(ctx, "short:"+code, link.URL, 0).Result()
		if err != nil {
			return err
		}
		if ok {
			link.Code = code
			return nil
		}
	}
	return ErrNoFreeCode
}
