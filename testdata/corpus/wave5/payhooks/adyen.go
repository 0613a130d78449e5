package payhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/lib/pq"
)

// adyenNotification is the body Adyen posts: a batch of items, each
// identified by its pspReference and eventCode.
type adyenNotification struct {
	Live  string `json:"live"`
	Items []struct {
		Item adyenItem `json:"NotificationRequestItem"`
	} `json:"notificationItems"`
}

type adyenItem struct {
	EventCode         string `json:"eventCode"`
	PspReference      string `json:"pspReference"`
	MerchantReference string `json:"merchantReference"`
	Success           string `json:"success"`
	Amount            struct {
		Currency string `json:"currency"`
		Value    int64  `json:"value"`
	} `json:"amount"`
}

func (it adyenItem) dedupKey() string { return it.PspReference + ":" + it.EventCode }

// Adyen expects this exact body, or it retries the batch.
func acceptAdyen(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte("[accepted]"))
}

func (rc *Receiver) applyAdyen(ctx context.Context, it adyenItem) error {
	switch it.EventCode {
	case "AUTHORISATION":
		if it.Success != "true" {
			return nil
		}
		return rc.orders.MarkPaid(ctx, it.MerchantReference, it.Amount.Value)
	case "REFUND":
		return rc.orders.Refunded(ctx, it.MerchantReference, it.Amount.Value)
	}
	return nil
}

// seen, notificationKnown and countNotifications look a notification up
// in adyen_notifications.
func (rc *Receiver) seen(ctx context.Context, it adyenItem) (bool, error) {
	return rc.notificationKnown(ctx, it.dedupKey())
}

func (rc *Receiver) notificationKnown(ctx context.Context, key string) (bool, error) {
	n, err := rc.countNotifications(ctx, key)
	return n > 0, err
}

func (rc *Receiver) countNotifications(ctx context.Context, key string) (int, error) {
	var n int
	err := rc.db.QueryRowContext(ctx, `SELECT count(*) FROM adyen_notifications WHERE dedup_key = $1`, key).Scan(&n)
	return n, err
}

func (rc *Receiver) remember(ctx context.Context, it adyenItem) error {
	_, err := rc.db.ExecContext(ctx,
		`INSERT INTO adyen_notifications (dedup_key, psp_reference, event_code) VALUES ($1, $2, $3)`,
		it.dedupKey(), it.PspReference, it.EventCode)
	return err
}

// HandleAdyen applies each item of an Adyen notification batch once.
//
// corpus: bug checkthenact
// modelled on: Adyen/adyen-commercetools notification/README.md (notification items keyed by pspReference and eventCode, stored after processing)
func (rc *Receiver) HandleAdyen(w http.ResponseWriter, r *http.Request) {
	var batch adyenNotification
	if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	for _, wrapped := range batch.Items {
		it := wrapped.Item
		known, err := rc.seen(ctx, it)
		if err != nil {
			http.Error(w, "lookup failed", http.StatusInternalServerError)
			return
		}
		if known {
			continue
		}
		if err := rc.applyAdyen(ctx, it); err != nil {
			http.Error(w, "apply failed", http.StatusInternalServerError)
			return
		}
		if err := rc.remember(ctx, it); err != nil {
			http.Error(w, "record failed", http.StatusInternalServerError)
			return
		}
	}
	acceptAdyen(w)
}

// HandleAdyenUnique applies each item of an Adyen notification batch once:
// the item's row is inserted first, in the transaction that applies it,
// and a unique violation means it was applied before.
//
// corpus: ok checkthenact
// modelled on: Adyen/adyen-commercetools notification/README.md (notification items keyed by pspReference and eventCode)
func (rc *Receiver) HandleAdyenUnique(w http.ResponseWriter, r *http.Request) {
	var batch adyenNotification
	if err := json.NewDecoder(r.Body).Decode(&batch); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	for _, wrapped := range batch.Items {
		it := wrapped.Item
		if err := rc.applyAdyenOnce(ctx, it); err != nil {
			http.Error(w, "apply failed", http.StatusInternalServerError)
			return
		}
	}
	acceptAdyen(w)
}

func (rc *Receiver) applyAdyenOnce(ctx context.Context, it adyenItem) error {
	tx, err := rc.db.BeginTx(ctx, &sql.TxOptions{})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx,
		`INSERT INTO adyen_notifications (dedup_key, psp_reference, event_code) VALUES ($1, $2, $3)`,
		it.dedupKey(), it.PspReference, it.EventCode)
	var pqErr *pq.Error
	if errors.As(err, &pqErr) && pqErr.Code == "23505" {
		return nil // applied before
	}
	if err != nil {
		return err
	}
	switch it.EventCode {
	case "AUTHORISATION":
		if it.Success == "true" {
			_, err = tx.ExecContext(ctx, `UPDATE orders SET paid_cents = $2, status = 'paid' WHERE id = $1`,
				it.MerchantReference, it.Amount.Value)
		}
	case "REFUND":
		_, err = tx.ExecContext(ctx, `UPDATE orders SET refunded_cents = refunded_cents + $2 WHERE id = $1`,
			it.MerchantReference, it.Amount.Value)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}
