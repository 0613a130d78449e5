package attemptkey

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/plutov/paypal/v4"
)

// PayPal takes its idempotency key in PayPal-Request-Id, a header the
// rules catalogue names for the target.
func capturePayPal(ctx context.Context, hc *http.Client, url string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		req.Header.Set("PayPal-Request-Id", uuid.NewString()) // want `inside the retry loop at paypal.go:\d+ reaches the Paypal-Request-Id header`
		var resp *http.Response
		if resp, err = hc.Do(req); err == nil && resp.StatusCode < 500 {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func capturePayPalOnce(ctx context.Context, hc *http.Client, url string) error {
	requestID := uuid.NewString()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
		req.Header.Set("PayPal-Request-Id", requestID)
		req.Header.Set("PayPal-Partner-Attribution-Id", uuid.NewString())
		var resp *http.Response
		if resp, err = hc.Do(req); err == nil && resp.StatusCode < 500 {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A library method named for the header takes its key as a parameter.
func captureAuthorization(ctx context.Context, c *paypal.Client, authID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if _, err = c.CaptureAuthorizationWithPaypalRequestId(ctx, authID, &paypal.PaymentCaptureRequest{}, uuid.NewString()); err == nil { // want `reaches the requestID parameter of CaptureAuthorizationWithPaypalRequestId`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func captureAuthorizationOnce(ctx context.Context, c *paypal.Client, authID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if _, err = c.CaptureAuthorizationWithPaypalRequestId(ctx, "capture-"+authID, &paypal.PaymentCaptureRequest{}, "capture-"+authID); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}
