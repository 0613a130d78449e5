package resilience

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/plutov/paypal/v4"
)

// AuthCapturer captures authorised PayPal payments through the
// plutov/paypal SDK, asking again when PayPal answers 5xx.
type AuthCapturer struct {
	PayPal *paypal.Client
}

// Capture draws a new PayPal-Request-Id for each attempt: a capture
// PayPal made before the timeout is made again.
//
// corpus: bug attemptkey
// modelled on: plutov/paypal authorization.go (CaptureAuthorizationWithPaypalRequestId sets PayPal-Request-Id from its requestID)
func (a *AuthCapturer) Capture(ctx context.Context, authID string) (*paypal.PaymentCaptureResponse, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		res, err := a.PayPal.CaptureAuthorizationWithPaypalRequestId(ctx, authID, &paypal.PaymentCaptureRequest{FinalCapture: true}, uuid.NewString())
		if err == nil {
			return res, nil
		}
		last = err
		var perr *paypal.ErrorResponse
		if errors.As(err, &perr) && perr.Response != nil && perr.Response.StatusCode < 500 {
			break
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, last
}

// CaptureOnce names the capture after the authorisation, the same on
// every attempt.
//
// corpus: ok attemptkey
// modelled on: plutov/paypal authorization.go (CaptureAuthorizationWithPaypalRequestId sets PayPal-Request-Id from its requestID)
func (a *AuthCapturer) CaptureOnce(ctx context.Context, authID string) (*paypal.PaymentCaptureResponse, error) {
	requestID := "capture-" + authID
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		res, err := a.PayPal.CaptureAuthorizationWithPaypalRequestId(ctx, authID, &paypal.PaymentCaptureRequest{FinalCapture: true}, requestID)
		if err == nil {
			return res, nil
		}
		last = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, last
}
