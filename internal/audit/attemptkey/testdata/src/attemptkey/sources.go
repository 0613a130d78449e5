package attemptkey

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	mrand "math/rand"
	"net/http"
	"strconv"
	"time"

	gofrs4 "github.com/gofrs/uuid"
	gofrs "github.com/gofrs/uuid/v5"
	"github.com/google/uuid"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
	"github.com/stripe/stripe-go/v82"
)

// chargeOnce sends one attempt of a charge with the key it is given.
func chargeOnce(ctx context.Context, sc *stripe.Client, key string) error {
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(100)}
	params.SetIdempotencyKey(key)
	_, err := sc.V1PaymentIntents.Create(ctx, params)
	return err
}

// Every source of a fresh value, each drawn inside the retry loop.
func freshSources(ctx context.Context, sc *stripe.Client) {
	for range 3 {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey(gofrs.Must(gofrs.NewV4()).String()) // want `made by uuid.NewV4 at sources.go:\d+ inside the retry loop`
		u7, _ := gofrs.NewV7()
		params.SetIdempotencyKey(u7.String())          // want `made by uuid.NewV7`
		params.SetIdempotencyKey(ksuid.New().String()) // want `made by ksuid.New`
		k, _ := ksuid.NewRandom()
		params.SetIdempotencyKey(k.String())                               // want `made by ksuid.NewRandom`
		params.SetIdempotencyKey("pay-" + xid.New().String())              // want `made by xid.New`
		params.SetIdempotencyKey(rand.Text())                              // want `made by rand.Text`
		params.SetIdempotencyKey(strconv.FormatInt(time.Now().Unix(), 10)) // want `made by time.Now`
		params.SetIdempotencyKey(time.Now().Format(time.RFC3339Nano))      // want `made by time.Now`
		params.SetIdempotencyKey(time.Now().String())                      // want `made by time.Now`
		params.SetIdempotencyKey(fmt.Sprint(mrand.Int63() / 3600))         // want `made by rand.Int63`
		params.SetIdempotencyKey(fmt.Sprint(time.Now().UnixNano() / 10))   // want `made by time.Now`
		params.SetIdempotencyKey(fmt.Sprint(mrand.Int63()))                // want `made by rand.Int63`
		params.SetIdempotencyKey(gofrs4.Must(gofrs4.NewV4()).String())     // want `made by uuid.NewV4`
		g, _ := gofrs.DefaultGenerator.NewV4()
		params.SetIdempotencyKey(g.String()) // want `made by uuid.Generator.NewV4`
		if _, err := sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return
		}
	}
}

// A crypto/rand token, drawn into a buffer in the retry loop, then hex or
// base64 encoded.
func randomToken(ctx context.Context, sc *stripe.Client) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		buf := make([]byte, 16)
		if _, err = rand.Read(buf); err != nil {
			return err
		}
		if err = chargeOnce(ctx, sc, hex.EncodeToString(buf)); err == nil { // want `made by rand.Read at sources.go:\d+ inside the retry loop at sources.go:\d+ reaches chargeOnce, whose key parameter reaches SetIdempotencyKey`
			return nil
		}
	}
	return err
}

func randomTokenReadFull(ctx context.Context, sc *stripe.Client) error {
	var err error
	for range 5 {
		var b [12]byte
		io.ReadFull(rand.Reader, b[:])
		if err = chargeOnce(ctx, sc, base64.RawURLEncoding.EncodeToString(b[:])); err == nil { // want `made by io.ReadFull\(rand.Reader\)`
			return nil
		}
	}
	return err
}

// The token drawn once, before the retries.
func randomTokenOnce(ctx context.Context, sc *stripe.Client) error {
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	key := hex.EncodeToString(buf)
	var err error
	for range 5 {
		if err = chargeOnce(ctx, sc, key); err == nil {
			return nil
		}
	}
	return err
}

// Derived values: name-based UUIDs of the order, a day's or an hour's
// slot of the clock, and a buffer that holds the order ID.
func derivedSources(ctx context.Context, sc *stripe.Client, orderID string) {
	for range 3 {
		params := &stripe.PaymentIntentCreateParams{}
		params.SetIdempotencyKey(gofrs.NewV5(gofrs.NamespaceURL, orderID).String())
		params.SetIdempotencyKey(uuid.NewSHA1(uuid.NameSpaceURL, []byte(orderID)).String())
		params.SetIdempotencyKey(uuid.NewMD5(uuid.NameSpaceURL, []byte(orderID)).String())
		params.SetIdempotencyKey(gofrs4.NewV5(gofrs4.NamespaceURL, orderID).String())
		params.SetIdempotencyKey("report:" + time.Now().UTC().Format("2006-01-02"))
		params.SetIdempotencyKey("report:" + time.Now().Format("2006010215"))
		params.SetIdempotencyKey(fmt.Sprintf("report:%d", time.Now().YearDay()))
		params.SetIdempotencyKey(strconv.FormatInt(time.Now().Truncate(time.Hour).Unix(), 10))
		params.SetIdempotencyKey(strconv.FormatInt(time.Now().Unix()/3600, 10))
		params.SetIdempotencyKey(strconv.FormatInt(time.Now().UnixMilli()/int64(time.Hour/time.Millisecond), 10))
		buf := []byte(orderID)
		params.SetIdempotencyKey(hex.EncodeToString(buf))
		if _, err := sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return
		}
	}
}

// Fresh values in the loop that are no key: a trace ID on a header no one
// deduplicates by, a timestamp field, jitter.
func freshNotKeys(ctx context.Context, orderID string) {
	for range 3 {
		req, _ := http.NewRequestWithContext(ctx, "POST", "https://ledger.internal/entries", nil)
		req.Header.Set("Idempotency-Key", "entry:"+orderID)
		req.Header.Set("X-Request-Id", uuid.NewString())
		req.Header.Set("X-Sent-At", time.Now().Format(time.RFC3339))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(time.Duration(mrand.Intn(100)) * time.Millisecond)
	}
}
