package attemptkey

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

// A test makes fresh records on every run by design: fifteen charges, a
// pause between them so their times differ, are no retries, and a test
// named for a daily job is no scheduled run.
func TestRefreshDailyCharges(t *testing.T) {
	ctx := context.Background()
	var sc *stripe.Client
	for i := 0; i < 15; i++ {
		chargeOnce(ctx, sc, uuid.NewString())
		time.Sleep(time.Millisecond)
	}
	chargeOnce(ctx, sc, uuid.NewString())
}

// The same loop in service code is a retry.
func chargeThrice(ctx context.Context, sc *stripe.Client) {
	for i := 0; i < 3; i++ {
		chargeOnce(ctx, sc, uuid.NewString()) // want `inside the retry loop`
		time.Sleep(time.Second)
	}
}
