// Package paypal is a minimal copy of plutov/paypal's signatures.
package paypal

import "context"

type Client struct{}

type PaymentCaptureRequest struct{}

type PaymentCaptureResponse struct{ ID string }

func (c *Client) CaptureAuthorizationWithPaypalRequestId(ctx context.Context, authID string, req *PaymentCaptureRequest, requestID string) (*PaymentCaptureResponse, error) {
	return nil, nil
}
