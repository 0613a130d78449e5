package subscriptions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// ErrInFlight says the key's first request is still running.
var ErrInFlight = errors.New("subscriptions: request in progress")

// claimActivation inserts the activation row as in progress and reports
// whether this call inserted it.
func (s *Service) claimActivation(ctx context.Context, key, subID string) (bool, error) {
	res, err := s.db.NewInsert().Model(&Activation{Key: key, SubscriptionID: subID, Status: "in_progress"}).
		On("CONFLICT (key) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (s *Service) dropActivation(ctx context.Context, key string) {
	if _, err := s.db.NewDelete().Model((*Activation)(nil)).
		Where("key = ? AND status = 'in_progress'", key).Exec(context.WithoutCancel(ctx)); err != nil {
		s.log.ErrorContext(ctx, "drop activation", "key", key, "err", err)
	}
}

// storedFeatures returns the features answered for key, or ErrInFlight
// while the key's first request runs.
func (s *Service) storedFeatures(ctx context.Context, key string) (map[string]any, error) {
	var a Activation
	if err := s.db.NewSelect().Model(&a).Where("key = ?", key).Scan(ctx); err != nil {
		return nil, fmt.Errorf("lookup activation: %w", err)
	}
	if a.Status != "completed" {
		return nil, ErrInFlight
	}
	var features map[string]any
	if err := json.Unmarshal(a.ResponseBody, &features); err != nil {
		return nil, fmt.Errorf("decode stored features: %w", err)
	}
	return features, nil
}

// Activate switches a subscription to a plan under the client's key and
// keeps the features it answered with.
//
// corpus: bug releaseonerror
// modelled on: oagudo/outbox README.md (rows written in the caller's transaction and retried by a relay)
func (s *Service) Activate(ctx context.Context, key, subID, planID string) (map[string]any, error) {
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		return nil, fmt.Errorf("claim activation: %w", err)
	}
	if !claimed {
		return s.storedFeatures(ctx, key)
	}
	features, err := s.prov.Provision(ctx, subID, planID)
	if err != nil {
		return nil, fmt.Errorf("provision %s: %w", planID, err)
	}
	body, _ := json.Marshal(features)
	if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
		Set("status = 'completed'").Set("response_code = ?", http.StatusOK).Set("response_body = ?", body).
		Where("key = ?", key).Exec(ctx); err != nil {
		s.log.ErrorContext(ctx, "complete activation", "key", key, "err", err)
	}
	return features, nil
}

// ActivateReleasing switches a subscription to a plan under the client's
// key; an error or a panic in the provisioner deletes the claim.
//
// corpus: ok releaseonerror
// modelled on: oagudo/outbox README.md (rows written in the caller's transaction and retried by a relay)
func (s *Service) ActivateReleasing(ctx context.Context, key, subID, planID string) (features map[string]any, err error) {
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		return nil, fmt.Errorf("claim activation: %w", err)
	}
	if !claimed {
		return s.storedFeatures(ctx, key)
	}
	defer func() {
		if r := recover(); r != nil {
			s.dropActivation(ctx, key)
			panic(r)
		}
		if err != nil {
			s.dropActivation(ctx, key)
		}
	}()
	features, err = s.prov.Provision(ctx, subID, planID)
	if err != nil {
		return nil, fmt.Errorf("provision %s: %w", planID, err)
	}
	body, _ := json.Marshal(features)
	if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
		Set("status = 'completed'").Set("response_code = ?", http.StatusOK).Set("response_body = ?", body).
		Where("key = ?", key).Exec(ctx); err != nil {
		s.log.ErrorContext(ctx, "complete activation", "key", key, "err", err)
	}
	return features, nil
}

// ActivateStatusOnly switches a subscription to a plan under the client's
// key.
//
// corpus: bug cacheresponse
// modelled on: web3dev6/token_contract_api db/query/transaction.sql (a transaction row with a status column)
func (s *Service) ActivateStatusOnly(ctx context.Context, key, subID, planID string) (features map[string]any, err error) {
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		return nil, fmt.Errorf("claim activation: %w", err)
	}
	if !claimed {
		return s.storedFeatures(ctx, key)
	}
	features, err = s.prov.Provision(ctx, subID, planID)
	if err != nil {
		s.dropActivation(ctx, key)
		return nil, fmt.Errorf("provision %s: %w", planID, err)
	}
	if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
		Set("status = ?", "completed").Where("key = ?", key).Exec(ctx); err != nil {
		s.log.ErrorContext(ctx, "complete activation", "key", key, "err", err)
	}
	return features, nil
}

// changeTTL is how long a plan-change key is kept.
const changeTTL = 24 * time.Hour

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// ChangePlan changes a subscription's plan under the client's key, kept
// as a Redis hash claimed with HSETNX.
//
// corpus: bug cacheresponse
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (a Redis key marked once the work is done)
func (s *Service) ChangePlan(w http.ResponseWriter, r *http.Request) {
	key := "planchange:" + r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayChange(ctx, w, key)
		return
	}
	s.rdb.Expire(ctx, key, changeTTL)
	features, err := s.prov.Provision(ctx, r.PathValue("id"), r.URL.Query().Get("plan"))
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		writeJSON(w, http.StatusBadGateway, map[string]string{"title": "provisioning failed"})
		return
	}
	s.rdb.HSet(ctx, key, "status", "done")
	writeJSON(w, http.StatusOK, features)
}

// ChangePlanReplayable changes a subscription's plan under the client's
// key and keeps the answer in the key's hash.
//
// corpus: ok cacheresponse
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (a Redis key marked once the work is done)
func (s *Service) ChangePlanReplayable(w http.ResponseWriter, r *http.Request) {
	key := "planchange:" + r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayChange(ctx, w, key)
		return
	}
	s.rdb.Expire(ctx, key, changeTTL)
	features, err := s.prov.Provision(ctx, r.PathValue("id"), r.URL.Query().Get("plan"))
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		writeJSON(w, http.StatusBadGateway, map[string]string{"title": "provisioning failed"})
		return
	}
	body, err := json.Marshal(features)
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "encoding failed"})
		return
	}
	s.rdb.HSet(ctx, key, "status", "done", "code", http.StatusOK, "body", body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// ChangeAddons changes a subscription's add-ons under the client's key,
// kept as a Redis hash claimed with HSETNX.
//
// corpus: bug releaseonerror
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (unmark to allow reprocessing)
func (s *Service) ChangeAddons(w http.ResponseWriter, r *http.Request) {
	key := "addons:" + r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayChange(ctx, w, key)
		return
	}
	s.rdb.Expire(ctx, key, changeTTL)
	features, err := s.prov.Provision(ctx, r.PathValue("id"), "addons:"+r.URL.Query().Get("set"))
	if err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), key)
		writeJSON(w, http.StatusBadGateway, map[string]string{"title": "provisioning failed"})
		return
	}
	body, err := json.Marshal(features)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "encoding failed"})
		return
	}
	s.rdb.HSet(ctx, key, "status", "done", "code", http.StatusOK, "body", body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}

// replayChange answers with the stored answer of a plan change, or 409.
func (s *Service) replayChange(ctx context.Context, w http.ResponseWriter, key string) {
	vals, err := s.rdb.HGetAll(ctx, key).Result()
	if err != nil || vals["status"] != "done" || vals["body"] == "" {
		writeJSON(w, http.StatusConflict, map[string]string{"title": "request in progress"})
		return
	}
	code, err := strconv.Atoi(vals["code"])
	if err != nil {
		code = http.StatusOK
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(vals["body"]))
}

// ChangePlanAsync accepts a plan change under the client's key and runs it
// in the background; the goroutine stores the answer the client was given
// once the change is made, or gives the key back.
//
// corpus: ok releaseonerror
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (work acknowledged, then finished by a worker)
func (s *Service) ChangePlanAsync(w http.ResponseWriter, r *http.Request) {
	key := "planchange:" + r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	claimed, err := s.rdb.HSetNX(ctx, key, "status", "processing").Result()
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayChange(ctx, w, key)
		return
	}
	s.rdb.Expire(ctx, key, changeTTL)
	subID, plan := r.PathValue("id"), r.URL.Query().Get("plan")
	accepted, _ := json.Marshal(map[string]string{"status": "accepted", "subscription": subID, "plan": plan})
	go func() {
		bg := context.WithoutCancel(ctx)
		if _, err := s.prov.Provision(bg, subID, plan); err != nil {
			s.rdb.Del(bg, key)
			return
		}
		s.rdb.HSet(bg, key, "status", "done", "code", http.StatusAccepted, "body", accepted)
	}()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(accepted)
}

// applyPlan writes the new plan onto the subscription.
func (s *Service) applyPlan(ctx context.Context, subID, planID string) error {
	_, err := s.db.NewUpdate().Model((*Subscription)(nil)).Set("plan_id = ?", planID).Where("id = ?", subID).Exec(ctx)
	return err
}

// SwitchPlan moves a subscription to another plan while holding the
// subscription's lock.
//
// corpus: bug releaseonerror
// modelled on: amyangfei/redlock-go README.md (Lock with a validity time, UnLock when done)
func (s *Service) SwitchPlan(ctx context.Context, subID, planID string) error {
	lockKey, token := "lock:subscription:"+subID, uuid.NewString()
	ok, err := s.locks.TryLock(ctx, lockKey, token, 30*time.Second)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if !ok {
		return ErrLocked
	}
	if _, err := s.prov.Provision(ctx, subID, planID); err != nil {
		s.log.WarnContext(ctx, "provision failed", "subscription", subID, "err", err)
		return err
	}
	if err := s.applyPlan(ctx, subID, planID); err != nil {
		return fmt.Errorf("apply plan: %w", err)
	}
	return s.locks.Unlock(ctx, lockKey, token)
}

// SwitchPlanLocked moves a subscription to another plan while holding the
// subscription's lock, given back through a local closure on every path.
//
// corpus: ok releaseonerror
// modelled on: amyangfei/redlock-go README.md (Lock with a validity time, UnLock when done)
func (s *Service) SwitchPlanLocked(ctx context.Context, subID, planID string) error {
	lockKey, token := "lock:subscription:"+subID, uuid.NewString()
	ok, err := s.locks.TryLock(ctx, lockKey, token, 30*time.Second)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	if !ok {
		return ErrLocked
	}
	release := func() {
		if err := s.locks.Unlock(context.WithoutCancel(ctx), lockKey, token); err != nil {
			s.log.WarnContext(ctx, "unlock", "key", lockKey, "err", err)
		}
	}
	if _, err := s.prov.Provision(ctx, subID, planID); err != nil {
		release()
		return err
	}
	if err := s.applyPlan(ctx, subID, planID); err != nil {
		release()
		return fmt.Errorf("apply plan: %w", err)
	}
	release()
	return nil
}
