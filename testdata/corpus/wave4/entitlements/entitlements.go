// Package entitlements hands out grants: time-boxed rights of a user to a
// product SKU (trials, promotional months, licences provisioned at a
// vendor). It declares the store it needs; pgstore implements it on
// Postgres.
package entitlements

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// Grant is one right of a user to a SKU.
type Grant struct {
	ID       string
	UserID   string
	SKU      string
	Source   string
	StartsAt time.Time
	EndsAt   time.Time
	State    string
}

// RequestRecord is what the store keeps of one grant request.
type RequestRecord struct {
	Key    string
	State  string
	Status int
	Body   []byte
}

// GrantStore keeps grants and grant requests.
type GrantStore interface {
	ActiveGrant(ctx context.Context, userID, sku string) (*Grant, error)
	CreateGrant(ctx context.Context, g Grant) error
	CreateGrantUnlessActive(ctx context.Context, g Grant) (bool, error)
	MoveGrant(ctx context.Context, id, from, to string) (bool, error)

	BeginRequest(ctx context.Context, key string) (bool, error)
	LoadRequest(ctx context.Context, key string) (RequestRecord, error)
	FinishRequest(ctx context.Context, key string) error
	FinishRequestWith(ctx context.Context, key string, status int, body []byte) error
	AbandonRequest(ctx context.Context, key string) error
}

// LicenseVendor issues seats at the licence vendor.
type LicenseVendor interface {
	IssueSeat(ctx context.Context, userID, sku string) (seatRef string, err error)
}

// Service hands out grants.
type Service struct {
	store  GrantStore
	vendor LicenseVendor
	log    *slog.Logger
	now    func() time.Time
}

// NewService returns a Service.
func NewService(store GrantStore, vendor LicenseVendor, log *slog.Logger) *Service {
	return &Service{store: store, vendor: vendor, log: log, now: time.Now}
}

// ErrAlreadyGranted means the user holds an active grant of the SKU.
var ErrAlreadyGranted = errors.New("entitlements: already granted")

// GrantTrial gives the user a 14-day trial of sku, once.
//
// corpus: bug checkthenact
// modelled on: sibuh/Room-Reservation internal/storage/queries/reservations.sql (existing reservations read, then a new one inserted by the service)
func (s *Service) GrantTrial(ctx context.Context, userID, sku string) (*Grant, error) {
	existing, err := s.store.ActiveGrant(ctx, userID, sku)
	if err != nil {
		return nil, fmt.Errorf("look up grant: %w", err)
	}
	if existing != nil {
		return nil, ErrAlreadyGranted
	}
	start := s.now()
	g := Grant{
		ID:       uuid.NewString(),
		UserID:   userID,
		SKU:      sku,
		Source:   "trial",
		StartsAt: start,
		EndsAt:   start.Add(14 * 24 * time.Hour),
	}
	if err := s.store.CreateGrant(ctx, g); err != nil {
		return nil, fmt.Errorf("create grant: %w", err)
	}
	return &g, nil
}

// GrantPromo gives the user a promotional month of sku unless the user
// holds one.
//
// corpus: ok checkthenact
// modelled on: quinta-nails/companies internal/db/query.sql (AddReserves: INSERT ... ON CONFLICT DO NOTHING)
func (s *Service) GrantPromo(ctx context.Context, userID, sku, campaign string) (*Grant, error) {
	start := s.now()
	g := Grant{
		ID:       uuid.NewString(),
		UserID:   userID,
		SKU:      sku,
		Source:   "promo:" + campaign,
		StartsAt: start,
		EndsAt:   start.AddDate(0, 1, 0),
	}
	created, err := s.store.CreateGrantUnlessActive(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("create grant: %w", err)
	}
	if !created {
		return nil, ErrAlreadyGranted
	}
	return &g, nil
}

// ProvisionLicense takes a pending grant, issues its seat at the vendor,
// and marks it provisioned.
//
// corpus: bug releaseonerror
// modelled on: Matltin/Bilitioo-Backend db/queries/reservation.sql (status moved with UPDATE ... WHERE status = ...)
func (s *Service) ProvisionLicense(ctx context.Context, g Grant) error {
	ok, err := s.store.MoveGrant(ctx, g.ID, "pending", "provisioning")
	if err != nil {
		return err
	}
	if !ok {
		return nil // another worker has it
	}
	seat, err := s.vendor.IssueSeat(ctx, g.UserID, g.SKU)
	if err != nil {
		return fmt.Errorf("issue seat for grant %s: %w", g.ID, err)
	}
	s.log.InfoContext(ctx, "seat issued", "grant", g.ID, "seat", seat)
	_, err = s.store.MoveGrant(ctx, g.ID, "provisioning", "active")
	return err
}

// ProvisionLicenseOrRequeue takes a pending grant, issues its seat at the
// vendor, and marks it provisioned; a failed issue puts the grant back.
//
// corpus: ok releaseonerror
// modelled on: Matltin/Bilitioo-Backend db/queries/reservation.sql (CancelReservation puts the status back)
func (s *Service) ProvisionLicenseOrRequeue(ctx context.Context, g Grant) (err error) {
	ok, err := s.store.MoveGrant(ctx, g.ID, "pending", "provisioning")
	if err != nil || !ok {
		return err
	}
	defer func() {
		if err == nil {
			return
		}
		if _, rerr := s.store.MoveGrant(context.WithoutCancel(ctx), g.ID, "provisioning", "pending"); rerr != nil {
			s.log.ErrorContext(ctx, "requeue grant", "grant", g.ID, "err", rerr)
		}
	}()
	seat, err := s.vendor.IssueSeat(ctx, g.UserID, g.SKU)
	if err != nil {
		return fmt.Errorf("issue seat for grant %s: %w", g.ID, err)
	}
	s.log.InfoContext(ctx, "seat issued", "grant", g.ID, "seat", seat)
	_, err = s.store.MoveGrant(ctx, g.ID, "provisioning", "active")
	return err
}

type grantBody struct {
	UserID string `json:"user_id"`
	SKU    string `json:"sku"`
}

type grantReply struct {
	GrantID string    `json:"grant_id"`
	EndsAt  time.Time `json:"ends_at"`
}

// ServeGrant is POST /v1/grants. A client retries with the same
// Request-Key header.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (idempotency manager: key claimed, handler run, key completed)
func (s *Service) ServeGrant(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Request-Key")
	if key == "" {
		http.Error(w, "Request-Key required", http.StatusBadRequest)
		return
	}
	var body grantBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	first, err := s.store.BeginRequest(ctx, key)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		rec, err := s.store.LoadRequest(ctx, key)
		if err != nil {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		if rec.State == "succeeded" {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}

	g, err := s.GrantPromo(ctx, body.UserID, body.SKU, "api")
	if err != nil {
		if aerr := s.store.AbandonRequest(context.WithoutCancel(ctx), key); aerr != nil {
			s.log.ErrorContext(ctx, "abandon request", "key", key, "err", aerr)
		}
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	if err := s.store.FinishRequest(ctx, key); err != nil {
		s.log.ErrorContext(ctx, "finish request", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(grantReply{GrantID: g.ID, EndsAt: g.EndsAt})
}

// ServeGrantReplaying is POST /v2/grants. A client retries with the same
// Request-Key header.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (idempotency manager stores the response and replays it)
func (s *Service) ServeGrantReplaying(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key := r.Header.Get("Request-Key")
	if key == "" {
		http.Error(w, "Request-Key required", http.StatusBadRequest)
		return
	}
	var body grantBody
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	first, err := s.store.BeginRequest(ctx, key)
	if err != nil {
		http.Error(w, "store unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		rec, err := s.store.LoadRequest(ctx, key)
		if err != nil {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		if rec.State == "succeeded" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Status)
			_, _ = w.Write(rec.Body)
			return
		}
		http.Error(w, "request in progress", http.StatusConflict)
		return
	}

	g, err := s.GrantPromo(ctx, body.UserID, body.SKU, "api")
	if err != nil {
		if aerr := s.store.AbandonRequest(context.WithoutCancel(ctx), key); aerr != nil {
			s.log.ErrorContext(ctx, "abandon request", "key", key, "err", aerr)
		}
		http.Error(w, err.Error(), http.StatusUnprocessableEntity)
		return
	}
	out, _ := json.Marshal(grantReply{GrantID: g.ID, EndsAt: g.EndsAt})
	if err := s.store.FinishRequestWith(ctx, key, http.StatusCreated, out); err != nil {
		s.log.ErrorContext(ctx, "finish request", "key", key, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(out)
}
