package subscriptions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/stripe/stripe-go/v82"
)

// Trial is one row of trials.
type Trial struct {
	CustomerID string    `bun:"customer_id,pk"`
	PlanID     string    `bun:"plan_id"`
	EndsAt     time.Time `bun:"ends_at"`
}

// StartTrial starts a customer's free trial, once per customer.
//
// corpus: bug checkthenact
// modelled on: domgoodwin/bookscan database/user.go (UserExists by NewSelect().Exists, and a separate create)
func (s *Service) StartTrial(ctx context.Context, customerID, planID string) error {
	had, err := s.db.NewSelect().Model((*Trial)(nil)).Where("customer_id = ?", customerID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("trial exists: %w", err)
	}
	if had {
		return nil
	}
	_, err = s.db.NewInsert().Model(&Trial{CustomerID: customerID, PlanID: planID, EndsAt: time.Now().AddDate(0, 0, 14)}).Exec(ctx)
	return err
}

// SetTrialPlan sets the plan of a customer's trial, creating the trial
// row if needed; the upsert leaves one row whatever the interleaving.
//
// corpus: ok checkthenact
// modelled on: uagolang/bunhelpers README.md (bun query builders run on a querier from the context)
func (s *Service) SetTrialPlan(ctx context.Context, customerID, planID string) error {
	had, err := s.db.NewSelect().Model((*Trial)(nil)).Where("customer_id = ?", customerID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("trial exists: %w", err)
	}
	if !had {
		s.log.InfoContext(ctx, "first trial", "customer", customerID)
	}
	_, err = s.db.NewInsert().Model(&Trial{CustomerID: customerID, PlanID: planID, EndsAt: time.Now().AddDate(0, 0, 14)}).
		On("CONFLICT (customer_id) DO UPDATE").Set("plan_id = EXCLUDED.plan_id").Exec(ctx)
	return err
}

// finishActivation stores the answer under key and sends it.
func (s *Service) finishActivation(ctx context.Context, w http.ResponseWriter, key string, code int, v any) {
	body, _ := json.Marshal(v)
	if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
		Set("status = 'completed'").Set("response_code = ?", code).Set("response_body = ?", body).
		Where("key = ?", key).Exec(ctx); err != nil {
		s.log.ErrorContext(ctx, "complete activation", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

func isCardError(err error) bool {
	var se *stripe.Error
	return errors.As(err, &se) && se.Type == stripe.ErrorTypeCard
}

// Upgrade charges the prorated difference and upgrades the plan under the
// client's key. A declined card is a final answer and is stored.
//
// corpus: bug releaseonerror
// modelled on: Guilospanck/stripe-go-integration README.md (a Go service calling Stripe for subscription payments)
func (s *Service) Upgrade(w http.ResponseWriter, r *http.Request) {
	key, subID := r.Header.Get("Idempotency-Key"), r.PathValue("id")
	ctx := r.Context()
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayActivation(ctx, w, key)
		return
	}
	var sub Subscription
	if err := s.db.NewSelect().Model(&sub).Where("id = ?", subID).Scan(ctx); err != nil {
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "lookup failed"})
		return
	}
	_, err = s.charge(ctx, chargeOptions{
		Customer: sub.CustomerID, AmountMinor: sub.AmountMinor / 2, Currency: sub.Currency,
		Description: "upgrade of " + sub.ID, IdempotencyKey: key + ":upgrade",
	})
	switch {
	case isCardError(err):
		s.finishActivation(ctx, w, key, http.StatusPaymentRequired, map[string]string{"title": "card declined"})
		return
	case err != nil:
		writeJSON(w, http.StatusBadGateway, map[string]string{"title": "payment provider unavailable"})
		return
	}
	if err := s.applyPlan(ctx, subID, r.URL.Query().Get("plan")); err != nil {
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "upgrade failed"})
		return
	}
	s.finishActivation(ctx, w, key, http.StatusOK, map[string]string{"subscription": subID, "status": "upgraded"})
}

// UpgradeReleasing charges the prorated difference and upgrades the plan
// under the client's key; a declined card is stored, any other failure
// gives the key back.
//
// corpus: ok releaseonerror
// modelled on: Guilospanck/stripe-go-integration README.md (a Go service calling Stripe for subscription payments)
func (s *Service) UpgradeReleasing(w http.ResponseWriter, r *http.Request) {
	key, subID := r.Header.Get("Idempotency-Key"), r.PathValue("id")
	ctx := r.Context()
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayActivation(ctx, w, key)
		return
	}
	var sub Subscription
	if err := s.db.NewSelect().Model(&sub).Where("id = ?", subID).Scan(ctx); err != nil {
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "lookup failed"})
		return
	}
	_, err = s.charge(ctx, chargeOptions{
		Customer: sub.CustomerID, AmountMinor: sub.AmountMinor / 2, Currency: sub.Currency,
		Description: "upgrade of " + sub.ID, IdempotencyKey: key + ":upgrade",
	})
	switch {
	case isCardError(err):
		s.finishActivation(ctx, w, key, http.StatusPaymentRequired, map[string]string{"title": "card declined"})
		return
	case err != nil:
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusBadGateway, map[string]string{"title": "payment provider unavailable"})
		return
	}
	if err := s.applyPlan(ctx, subID, r.URL.Query().Get("plan")); err != nil {
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "upgrade failed"})
		return
	}
	s.finishActivation(ctx, w, key, http.StatusOK, map[string]string{"subscription": subID, "status": "upgraded"})
}
