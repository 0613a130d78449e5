package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// BookingAPI takes bookings from partner apps (maps, review sites). Every
// partner call carries an Idempotency-Key; partners retry on 5xx and on
// timeouts.
type BookingAPI struct {
	pool    *pgxpool.Pool
	gdb     *gorm.DB
	backend Backend
}

// NewBookingAPI returns a BookingAPI.
func NewBookingAPI(pool *pgxpool.Pool, gdb *gorm.DB, b Backend) *BookingAPI {
	return &BookingAPI{pool: pool, gdb: gdb, backend: b}
}

type keyRow struct {
	completed bool
	code      int
	body      []byte
}

// lockKey inserts the partner's key; it returns false and the stored row
// when the key exists.
func (a *BookingAPI) lockKey(ctx context.Context, partner, key string) (bool, keyRow, error) {
	tag, err := a.pool.Exec(ctx,
		`INSERT INTO idempotency_keys (partner_id, idem_key, locked_at) VALUES ($1, $2, now())
		 ON CONFLICT (partner_id, idem_key) DO NOTHING`, partner, key)
	if err != nil {
		return false, keyRow{}, err
	}
	if tag.RowsAffected() == 1 {
		return true, keyRow{}, nil
	}
	var row keyRow
	var completedAt *time.Time
	var code *int
	err = a.pool.QueryRow(ctx,
		`SELECT completed_at, response_code, response_body FROM idempotency_keys
		  WHERE partner_id = $1 AND idem_key = $2`, partner, key).Scan(&completedAt, &code, &row.body)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, keyRow{}, errors.New("key vanished")
	}
	row.completed = completedAt != nil
	if code != nil {
		row.code = *code
	}
	return false, row, err
}

func (a *BookingAPI) unlockKey(ctx context.Context, partner, key string) {
	_, _ = a.pool.Exec(ctx,
		`DELETE FROM idempotency_keys WHERE partner_id = $1 AND idem_key = $2 AND completed_at IS NULL`, partner, key)
}

// ServeBook is POST /partner/v1/bookings.
//
// corpus: bug cacheresponse
// modelled on: pay-theory/lift pkg/middleware/idempotency.go (record looked up, processing marked, record completed after the handler)
func (a *BookingAPI) ServeBook(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	partner, key := r.Header.Get("X-Partner-Id"), r.Header.Get("Idempotency-Key")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if partner == "" || key == "" || err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	fresh, row, err := a.lockKey(ctx, partner, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		if row.completed {
			w.WriteHeader(http.StatusCreated)
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	status, resp, err := a.backend.Forward(ctx, http.MethodPost, "/bookings", body)
	if err != nil || status >= 500 {
		a.unlockKey(context.WithoutCancel(ctx), partner, key)
		http.Error(w, "bookings unavailable", http.StatusBadGateway)
		return
	}
	_, _ = a.pool.Exec(ctx,
		`UPDATE idempotency_keys SET completed_at = now(), locked_at = NULL
		  WHERE partner_id = $1 AND idem_key = $2`, partner, key)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// ServeBookV2 is POST /partner/v2/bookings.
//
// corpus: ok cacheresponse
// modelled on: pay-theory/lift pkg/middleware/idempotency.go (record completed with the response, replayed for a repeat)
func (a *BookingAPI) ServeBookV2(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	partner, key := r.Header.Get("X-Partner-Id"), r.Header.Get("Idempotency-Key")
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if partner == "" || key == "" || err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	fresh, row, err := a.lockKey(ctx, partner, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		if row.completed {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(row.code)
			_, _ = w.Write(row.body)
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	status, resp, err := a.backend.Forward(ctx, http.MethodPost, "/bookings", body)
	if err != nil || status >= 500 {
		a.unlockKey(context.WithoutCancel(ctx), partner, key)
		http.Error(w, "bookings unavailable", http.StatusBadGateway)
		return
	}
	_, _ = a.pool.Exec(ctx,
		`UPDATE idempotency_keys
		    SET completed_at = now(), locked_at = NULL, response_code = $3, response_body = $4
		  WHERE partner_id = $1 AND idem_key = $2`, partner, key, status, resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// CancellationRequest is one partner cancellation as GORM keeps it.
type CancellationRequest struct {
	PartnerID    string `gorm:"primaryKey"`
	RequestKey   string `gorm:"primaryKey"`
	Status       string
	ResponseCode int
	ResponseBody []byte
	UpdatedAt    time.Time
}

func (a *BookingAPI) claimCancellation(ctx context.Context, partner, key string) (bool, CancellationRequest, error) {
	rec := CancellationRequest{PartnerID: partner, RequestKey: key, Status: "started"}
	res := a.gdb.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&rec)
	if res.Error != nil {
		return false, rec, res.Error
	}
	if res.RowsAffected == 1 {
		return true, rec, nil
	}
	var prev CancellationRequest
	err := a.gdb.WithContext(ctx).First(&prev, "partner_id = ? AND request_key = ?", partner, key).Error
	return false, prev, err
}

func (a *BookingAPI) dropCancellation(ctx context.Context, partner, key string) {
	a.gdb.WithContext(ctx).
		Where("partner_id = ? AND request_key = ? AND status = ?", partner, key, "started").
		Delete(&CancellationRequest{})
}

type cancelBody struct {
	BookingID string `json:"booking_id"`
	Reason    string `json:"reason"`
}

// ServeCancel is POST /partner/v1/cancellations.
//
// corpus: bug cacheresponse
// modelled on: fco-gt/gopotency README.md (PostgreSQL storage of idempotency records with a status)
func (a *BookingAPI) ServeCancel(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	partner, key := r.Header.Get("X-Partner-Id"), r.Header.Get("Idempotency-Key")
	var in cancelBody
	if partner == "" || key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, prev, err := a.claimCancellation(ctx, partner, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if prev.Status == "completed" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"status":"completed"}`))
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	raw, _ := json.Marshal(in)
	status, resp, err := a.backend.Forward(ctx, http.MethodPost, "/cancellations", raw)
	if err != nil || status >= 500 {
		a.dropCancellation(context.WithoutCancel(ctx), partner, key)
		http.Error(w, "bookings unavailable", http.StatusBadGateway)
		return
	}
	a.gdb.WithContext(ctx).Model(&CancellationRequest{}).
		Where("partner_id = ? AND request_key = ?", partner, key).
		Update("status", "completed")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// ServeCancelV2 is POST /partner/v2/cancellations.
//
// corpus: ok cacheresponse
// modelled on: fco-gt/gopotency README.md (PostgreSQL storage of idempotency records with the response)
func (a *BookingAPI) ServeCancelV2(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	partner, key := r.Header.Get("X-Partner-Id"), r.Header.Get("Idempotency-Key")
	var in cancelBody
	if partner == "" || key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	first, prev, err := a.claimCancellation(ctx, partner, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !first {
		if prev.Status == "completed" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(prev.ResponseCode)
			_, _ = w.Write(prev.ResponseBody)
			return
		}
		http.Error(w, "in progress", http.StatusConflict)
		return
	}

	raw, _ := json.Marshal(in)
	status, resp, err := a.backend.Forward(ctx, http.MethodPost, "/cancellations", raw)
	if err != nil || status >= 500 {
		a.dropCancellation(context.WithoutCancel(ctx), partner, key)
		http.Error(w, "bookings unavailable", http.StatusBadGateway)
		return
	}
	a.gdb.WithContext(ctx).Model(&CancellationRequest{}).
		Where("partner_id = ? AND request_key = ?", partner, key).
		Updates(map[string]any{"status": "completed", "response_code": status, "response_body": resp})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}
