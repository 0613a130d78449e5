package subscriptions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/oklog/ulid/v2"
	"github.com/rs/xid"
	"github.com/stripe/stripe-go/v82"
)

func retryable(err error) bool {
	var se *stripe.Error
	if errors.As(err, &se) {
		return se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests
	}
	return err != nil
}

// Renew charges a subscription's next period, retrying transient Stripe
// failures.
//
// corpus: bug attemptkey
// modelled on: Guilospanck/stripe-go-integration README.md (a Go service calling Stripe for subscription payments)
func (s *Service) Renew(ctx context.Context, sub Subscription) (*stripe.PaymentIntent, error) {
	var lastErr error
	for attempt := range 3 {
		opts := chargeOptions{
			Customer:       sub.CustomerID,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
			Description:    "renewal of " + sub.PlanID,
			IdempotencyKey: fmt.Sprintf("renew-%s-%d", sub.ID, time.Now().UnixNano()),
		}
		pi, err := s.charge(ctx, opts)
		if err == nil {
			return pi, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, fmt.Errorf("renew %s: %w", sub.ID, lastErr)
}

// RenewForPeriod charges a subscription's next period, retrying transient
// Stripe failures; the key names the subscription and the period it pays.
//
// corpus: ok attemptkey
// modelled on: Guilospanck/stripe-go-integration README.md (a Go service calling Stripe for subscription payments)
func (s *Service) RenewForPeriod(ctx context.Context, sub Subscription) (*stripe.PaymentIntent, error) {
	var lastErr error
	for attempt := range 3 {
		opts := chargeOptions{
			Customer:       sub.CustomerID,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
			Description:    "renewal of " + sub.PlanID,
			IdempotencyKey: "renew-" + sub.ID + "-" + sub.PeriodEnd.UTC().Format("20060102"),
		}
		pi, err := s.charge(ctx, opts)
		if err == nil {
			return pi, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return nil, fmt.Errorf("renew %s: %w", sub.ID, lastErr)
}

// newBillingRequest builds a POST of payload to the billing service, with
// a key of its own.
func (s *Service) newBillingRequest(ctx context.Context, payload []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.billingURL+"/v1/usage", bytes.NewReader(payload))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", ulid.Make().String())
	return req, nil
}

func checkStatus(resp *http.Response) error {
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	switch {
	case resp.StatusCode >= 500:
		return fmt.Errorf("billing: status %d", resp.StatusCode)
	case resp.StatusCode >= 300:
		return backoff.Permanent(fmt.Errorf("billing: status %d", resp.StatusCode))
	}
	return nil
}

// ReportUsage reports a subscription's usage to the billing service,
// retrying with exponential backoff.
//
// corpus: bug attemptkey
// modelled on: appleboy/go-httpretry README.md (an HTTP client that retries with exponential backoff)
func (s *Service) ReportUsage(ctx context.Context, subID string, units int64) error {
	payload, err := json.Marshal(map[string]any{"subscription": subID, "units": units})
	if err != nil {
		return err
	}
	op := func() error {
		req, err := s.newBillingRequest(ctx, payload)
		if err != nil {
			return backoff.Permanent(err)
		}
		resp, err := s.http.Do(req)
		if err != nil {
			return err
		}
		return checkStatus(resp)
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// ReportUsageOnce reports a subscription's usage to the billing service,
// retrying with exponential backoff; the request, and so its key, is built
// once and cloned for each attempt.
//
// corpus: ok attemptkey
// modelled on: appleboy/go-httpretry README.md (an HTTP client that retries with exponential backoff)
func (s *Service) ReportUsageOnce(ctx context.Context, subID string, units int64) error {
	payload, err := json.Marshal(map[string]any{"subscription": subID, "units": units})
	if err != nil {
		return err
	}
	base, err := s.newBillingRequest(ctx, payload)
	if err != nil {
		return err
	}
	op := func() error {
		req := base.Clone(ctx)
		req.Body = io.NopCloser(bytes.NewReader(payload))
		resp, err := s.http.Do(req)
		if err != nil {
			return err
		}
		return checkStatus(resp)
	}
	return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
}

// InvoiceOverage creates the overage invoice of a subscription, retrying
// on Stripe errors; the key is bucketed by the minute so that a double
// click within the minute is absorbed.
//
// corpus: bug attemptkey
// modelled on: nikolajjsj/portfolio src/pages/blog/implementing-stripe-in-go.md (Stripe calls made from a Go backend for subscriptions)
func (s *Service) InvoiceOverage(ctx context.Context, sub Subscription) (*stripe.Invoice, error) {
	var lastErr error
	for attempt := range 4 {
		params := &stripe.InvoiceCreateParams{
			Customer:     stripe.String(sub.CustomerID),
			Subscription: stripe.String(sub.ID),
			AutoAdvance:  stripe.Bool(true),
		}
		bucket := time.Now().Truncate(time.Minute).Unix()
		params.SetIdempotencyKey(fmt.Sprintf("overage-%s-%d", sub.ID, bucket))
		inv, err := s.stripe.V1Invoices.Create(ctx, params)
		if err == nil {
			return inv, nil
		}
		if !retryable(err) {
			return nil, err
		}
		lastErr = err
		time.Sleep(time.Duration(1<<attempt) * 5 * time.Second)
	}
	return nil, lastErr
}

// HandleInvoiceOverage creates the overage invoice for the subscription
// named in the path; the client's Idempotency-Key, scoped to this step,
// is the key sent to Stripe.
//
// corpus: ok attemptkey
// modelled on: nikolajjsj/portfolio src/pages/blog/implementing-stripe-in-go.md (Stripe calls made from a Go backend for subscriptions)
func (s *Service) HandleInvoiceOverage(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		http.Error(w, "Idempotency-Key required", http.StatusBadRequest)
		return
	}
	var sub Subscription
	if err := s.db.NewSelect().Model(&sub).Where("id = ?", r.PathValue("id")).Scan(r.Context()); err != nil {
		http.Error(w, "unknown subscription", http.StatusNotFound)
		return
	}
	params := &stripe.InvoiceCreateParams{
		Customer:     stripe.String(sub.CustomerID),
		Subscription: stripe.String(sub.ID),
		AutoAdvance:  stripe.Bool(true),
	}
	params.SetIdempotencyKey(key + ":overage-invoice")
	inv, err := s.stripe.V1Invoices.Create(r.Context(), params)
	if err != nil {
		http.Error(w, "invoice failed", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"invoice": inv.ID})
}

func (s *Service) dueSubscriptions(ctx context.Context, before time.Time) ([]Subscription, error) {
	var subs []Subscription
	err := s.db.NewSelect().Model(&subs).Where("status = 'active' AND period_end <= ?", before).Scan(ctx)
	return subs, err
}

// RunRenewals is the hourly job that charges every subscription due; a run
// that fails is run again by the scheduler, and every replica runs it.
//
// corpus: bug attemptkey
// modelled on: alextanhongpin/go-scheduler README.md (cron scheduler on multiple instances, job run once per schedule)
func (s *Service) RunRenewals(ctx context.Context) error {
	subs, err := s.dueSubscriptions(ctx, time.Now())
	if err != nil {
		return err
	}
	var failed int
	for _, sub := range subs {
		_, err := s.charge(ctx, chargeOptions{
			Customer:       sub.CustomerID,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
			Description:    "renewal of " + sub.PlanID,
			IdempotencyKey: "renewal-" + sub.ID + "-" + xid.New().String(),
		})
		if err != nil {
			s.log.ErrorContext(ctx, "renewal", "subscription", sub.ID, "err", err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d renewals failed", failed)
	}
	return nil
}

// RunRenewalsForSlot is the hourly job that charges every subscription
// due; the key names the subscription and the period end it renews, so a
// rerun or a second replica sends the same key.
//
// corpus: ok attemptkey
// modelled on: alextanhongpin/go-scheduler README.md (cron scheduler on multiple instances, job run once per schedule)
func (s *Service) RunRenewalsForSlot(ctx context.Context, slot time.Time) error {
	subs, err := s.dueSubscriptions(ctx, slot)
	if err != nil {
		return err
	}
	var failed int
	for _, sub := range subs {
		_, err := s.charge(ctx, chargeOptions{
			Customer:       sub.CustomerID,
			AmountMinor:    sub.AmountMinor,
			Currency:       sub.Currency,
			Description:    "renewal of " + sub.PlanID,
			IdempotencyKey: "renewal-" + sub.ID + "-" + sub.PeriodEnd.UTC().Format(time.DateOnly),
		})
		if err != nil {
			s.log.ErrorContext(ctx, "renewal", "subscription", sub.ID, "err", err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d renewals failed", failed)
	}
	return nil
}
