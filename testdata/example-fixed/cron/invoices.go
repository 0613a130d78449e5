// Package cron runs the nightly invoicing job. Two schedulers may fire the
// same night, and a slow billing API makes the job retry its calls; the
// billing API deduplicates by Idempotency-Key.
package cron

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Invoices bills each account once a night.
type Invoices struct {
	Client     *http.Client
	BillingURL string
	Accounts   func(ctx context.Context) ([]string, error)
}

// Run invoices every account for the night of slot.
func (j *Invoices) Run(ctx context.Context, slot time.Time) error {
	accounts, err := j.Accounts(ctx)
	if err != nil {
		return err
	}
	for _, id := range accounts {
		if err := j.invoice(ctx, id, slot); err != nil {
			return fmt.Errorf("invoice %s: %w", id, err)
		}
	}
	return nil
}

func (j *Invoices) invoice(ctx context.Context, accountID string, slot time.Time) error {
	night := slot.UTC().Format("2006-01-02")
	body, err := json.Marshal(map[string]string{"account": accountID, "period": night})
	if err != nil {
		return err
	}
	// One key per account and night, whichever scheduler or attempt sends it.
	key := "invoice:" + accountID + ":" + night
	var last error
	for attempt := range 3 {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.BillingURL+"/v1/invoices", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Idempotency-Key", key)
		resp, err := j.Client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				return nil
			}
			err = fmt.Errorf("billing answered %s", resp.Status)
		}
		last = err
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return last
}
