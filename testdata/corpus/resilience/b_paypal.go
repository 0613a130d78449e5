package resilience

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
)

// errPayPalBusy marks an answer worth asking again: a 5xx or a timeout.
var errPayPalBusy = errors.New("paypal: try again")

// PayPalClient captures approved orders through PayPal's Orders API.
type PayPalClient struct {
	HTTP    *http.Client
	BaseURL string
	Token   func(context.Context) (string, error)
}

// capture posts one capture of an approved order; PayPal takes the
// request's key in PayPal-Request-Id.
func (c *PayPalClient) capture(ctx context.Context, orderID, requestID string) (string, error) {
	tok, err := c.Token(ctx)
	if err != nil {
		return "", err
	}
	url := fmt.Sprintf("%s/v2/checkout/orders/%s/capture", c.BaseURL, orderID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("PayPal-Request-Id", requestID)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return "", errors.Join(errPayPalBusy, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 500 {
		return "", fmt.Errorf("%w: answered %d", errPayPalBusy, resp.StatusCode)
	}
	var out struct {
		Status string `json:"status"`
	}
	return out.Status, json.NewDecoder(resp.Body).Decode(&out)
}

// CaptureOrder asks again on a 5xx, with a new PayPal-Request-Id each
// time: a capture PayPal made before the connection dropped is made again.
//
// corpus: bug attemptkey
// modelled on: plutov/paypal order.go (CaptureOrder posts /capture; the PayPal-Request-Id header is the caller's to set)
func (c *PayPalClient) CaptureOrder(ctx context.Context, orderID string) (string, error) {
	var last error
	for attempt := 1; attempt <= 3; attempt++ {
		req := c.captureRequest(ctx, orderID)
		status, err := c.capture(ctx, orderID, req)
		if err == nil {
			return status, nil
		}
		last = err
		if !errors.Is(err, errPayPalBusy) {
			break
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	return "", last
}

// captureRequest names one capture request.
func (c *PayPalClient) captureRequest(ctx context.Context, orderID string) string {
	return "capture-" + orderID + "-" + uuid.NewString()
}

// CaptureOrderOnce names the capture after the order: every attempt, and
// every later call for the same order, is the same request to PayPal.
//
// corpus: ok attemptkey
// modelled on: plutov/paypal order.go (CaptureOrder posts /capture; the PayPal-Request-Id header is the caller's to set)
func (c *PayPalClient) CaptureOrderOnce(ctx context.Context, orderID string) (string, error) {
	requestID := "capture-" + orderID
	var last error
	for attempt := 1; attempt <= 3; attempt++ {
		status, err := c.capture(ctx, orderID, requestID)
		if err == nil {
			return status, nil
		}
		last = err
		if !errors.Is(err, errPayPalBusy) {
			break
		}
		time.Sleep(time.Duration(attempt) * 500 * time.Millisecond)
	}
	return "", last
}
