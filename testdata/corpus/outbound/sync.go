package outbound

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrBusy tells the caller another call for the same thing is in flight.
var ErrBusy = errors.New("outbound: busy")

// Contact is a customer record pushed to the CRM.
type Contact struct {
	CustomerID string `json:"customer_id"`
	Email      string `json:"email"`
	Plan       string `json:"plan"`
}

// CRMSync pushes customer changes to the CRM, one push per customer at a
// time.
type CRMSync struct {
	Client
	rdb *redis.Client
}

// PushContact marks the customer's push in flight, pushes, and clears the
// mark. A failed push returns with the mark in place, and every push for
// that customer is refused as busy for the next half hour.
//
// corpus: bug releaseonerror
// modelled on: alsritter/rabbit internal/pkg/qylock/README.md (Set a lock key, the work, Release)
func (s *CRMSync) PushContact(ctx context.Context, c Contact) error {
	key := "crm:push:" + c.CustomerID
	ok, err := s.rdb.SetNX(ctx, key, "1", 30*time.Minute).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrBusy
	}
	req, err := s.newRequest(ctx, http.MethodPut, "/contacts/"+c.CustomerID, c)
	if err != nil {
		return err
	}
	if err := s.do(req, nil); err != nil {
		return fmt.Errorf("push contact %s: %w", c.CustomerID, err)
	}
	return s.rdb.Del(ctx, key).Err()
}

// ThrottledSMS sends verification codes through the SMS gateway.
type ThrottledSMS struct {
	SMSClient
	rdb *redis.Client
}

// SendCode sends a verification code at most once every thirty seconds per
// number. The throttle key is left in place when the gateway fails: that is
// the point of a throttle, and it expires by itself.
//
// corpus: ok releaseonerror
// modelled on: zty-f/GoTest redis/main.go (SetNX of a key with an expiry)
func (t *ThrottledSMS) SendCode(ctx context.Context, to, code string) error {
	ok, err := t.rdb.SetNX(ctx, "throttle:sms:"+to, code, 30*time.Second).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrBusy
	}
	if err := t.SendDerived(ctx, SMS{MessageID: "verify:" + to + ":" + code, To: to, Body: "Your code is " + code}); err != nil {
		return fmt.Errorf("send code: %w", err)
	}
	return nil
}

// Label is a shipping label bought from the carrier.
type Label struct {
	TrackingNumber string `json:"tracking_number"`
	PDFURL         string `json:"pdf_url"`
}

// CarrierClient buys shipping labels; the warehouse UI calls BuyLabel and
// retries it when the page times out.
type CarrierClient struct {
	Client
	rdb *redis.Client
}

// BuyLabel claims the order, buys its label and sets the claim to
// "purchased". A retry after the purchase finds "purchased" and gets an
// error instead of the label it paid for.
//
// corpus: bug cacheresponse
// modelled on: omeyang/ai-toolkit skills/idempotency-go/SKILL.md (processing, then completed, per idempotency key)
func (c *CarrierClient) BuyLabel(ctx context.Context, orderID string, parcel any) (*Label, error) {
	key := "label:" + orderID
	ok, err := c.rdb.SetNX(ctx, key, "buying", 24*time.Hour).Result()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("label for %s already bought", orderID)
	}
	req, err := c.newRequest(ctx, http.MethodPost, "/labels", parcel)
	if err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	req.Header.Set("Idempotency-Key", "label-"+orderID)
	var l Label
	if err := c.do(req, &l); err != nil {
		c.rdb.Del(context.WithoutCancel(ctx), key)
		return nil, err
	}
	c.rdb.Set(ctx, key, "purchased", 30*24*time.Hour)
	return &l, nil
}
