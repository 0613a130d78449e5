// Package edge is the public API's edge: chi routes and the idempotency
// middleware in front of the order and signup handlers.
package edge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// recorder keeps what the wrapped handler wrote.
type recorder struct {
	http.ResponseWriter
	status int
	header http.Header
	body   bytes.Buffer
}

func newRecorder(w http.ResponseWriter) *recorder { return &recorder{ResponseWriter: w} }

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.header = r.ResponseWriter.Header().Clone()
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(http.StatusOK)
	}
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Snapshot is a stored response.
type Snapshot struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

func (r *recorder) snapshot() Snapshot {
	return Snapshot{Status: r.status, Header: r.header, Body: r.body.Bytes()}
}

// KeyStore keeps idempotency keys for the middleware.
type KeyStore interface {
	Claim(ctx context.Context, key string) (bool, error)
	Lookup(ctx context.Context, key string) (*Snapshot, bool, error)
	MarkDone(ctx context.Context, key string) error
	Complete(ctx context.Context, key string, snap Snapshot) error
	Release(ctx context.Context, key string) error
}

// RedisKeys is the Redis KeyStore.
type RedisKeys struct {
	rdb *redis.Client
	ttl time.Duration
}

func (s *RedisKeys) Claim(ctx context.Context, key string) (bool, error) {
	return s.rdb.SetNX(ctx, "idem:"+key, "running", s.ttl).Result()
}

func (s *RedisKeys) Lookup(ctx context.Context, key string) (*Snapshot, bool, error) {
	v, err := s.rdb.Get(ctx, "idem:"+key).Result()
	if err != nil {
		return nil, false, err
	}
	switch v {
	case "running":
		return nil, false, nil
	case "done":
		return nil, true, nil
	}
	var snap Snapshot
	if err := json.Unmarshal([]byte(v), &snap); err != nil {
		return nil, false, err
	}
	return &snap, true, nil
}

func (s *RedisKeys) MarkDone(ctx context.Context, key string) error {
	return s.rdb.Set(ctx, "idem:"+key, "done", s.ttl).Err()
}

func (s *RedisKeys) Complete(ctx context.Context, key string, snap Snapshot) error {
	b, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	return s.rdb.Set(ctx, "idem:"+key, b, s.ttl).Err()
}

func (s *RedisKeys) Release(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, "idem:"+key).Err()
}

func replay(w http.ResponseWriter, snap *Snapshot) {
	for k, vs := range snap.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(snap.Status)
	_, _ = w.Write(snap.Body)
}

// Idempotent is chi middleware: a POST repeated with the same
// Idempotency-Key does not run the handler twice.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Check wraps the handler over a pluggable store)
func Idempotent(store KeyStore) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Idempotency-Key")
			if r.Method != http.MethodPost || key == "" {
				next.ServeHTTP(w, r)
				return
			}
			ctx := r.Context()
			fresh, err := store.Claim(ctx, key)
			if err != nil {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			if !fresh {
				snap, done, err := store.Lookup(ctx, key)
				switch {
				case err != nil:
					http.Error(w, "unavailable", http.StatusServiceUnavailable)
				case done && snap != nil:
					replay(w, snap)
				case done:
					w.WriteHeader(http.StatusOK)
				default:
					http.Error(w, "in progress", http.StatusConflict)
				}
				return
			}
			rec := newRecorder(w)
			next.ServeHTTP(rec, r)
			bg := context.WithoutCancel(ctx)
			if rec.status >= 500 {
				_ = store.Release(bg, key)
				return
			}
			_ = store.MarkDone(bg, key)
		})
	}
}

// IdempotentReplay is chi middleware: a POST repeated with the same
// Idempotency-Key gets the first response again.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Check wraps the handler over a pluggable store)
func IdempotentReplay(store KeyStore) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Idempotency-Key")
			if r.Method != http.MethodPost || key == "" {
				next.ServeHTTP(w, r)
				return
			}
			ctx := r.Context()
			fresh, err := store.Claim(ctx, key)
			if err != nil {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			if !fresh {
				snap, done, err := store.Lookup(ctx, key)
				switch {
				case err != nil:
					http.Error(w, "unavailable", http.StatusServiceUnavailable)
				case done && snap != nil:
					replay(w, snap)
				default:
					http.Error(w, "in progress", http.StatusConflict)
				}
				return
			}
			rec := newRecorder(w)
			next.ServeHTTP(rec, r)
			bg := context.WithoutCancel(ctx)
			if rec.status >= 500 {
				_ = store.Release(bg, key)
				return
			}
			_ = store.Complete(bg, key, rec.snapshot())
		})
	}
}

// IdempotentAll is chi middleware for the partner API: a POST repeated
// with the same Idempotency-Key gets the first response again.
//
// corpus: bug cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (response kept for Lifetime and replayed, KeepResponseHeaders)
func IdempotentAll(store KeyStore) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Idempotency-Key")
			if r.Method != http.MethodPost || key == "" {
				next.ServeHTTP(w, r)
				return
			}
			ctx := r.Context()
			fresh, err := store.Claim(ctx, key)
			if err != nil {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			if !fresh {
				snap, done, err := store.Lookup(ctx, key)
				if err == nil && done && snap != nil {
					replay(w, snap)
					return
				}
				http.Error(w, "in progress", http.StatusConflict)
				return
			}
			rec := newRecorder(w)
			next.ServeHTTP(rec, r)
			_ = store.Complete(context.WithoutCancel(ctx), key, rec.snapshot())
		})
	}
}

// IdempotentAllButErrors is chi middleware for the partner API: a POST
// repeated with the same Idempotency-Key gets the first response again;
// a 5xx is not kept, the key is released for the retry.
//
// corpus: ok cacheresponse
// modelled on: gofiber/fiber middleware/idempotency/README.md (response kept for Lifetime and replayed, KeepResponseHeaders)
func IdempotentAllButErrors(store KeyStore) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("Idempotency-Key")
			if r.Method != http.MethodPost || key == "" {
				next.ServeHTTP(w, r)
				return
			}
			ctx := r.Context()
			fresh, err := store.Claim(ctx, key)
			if err != nil {
				http.Error(w, "unavailable", http.StatusServiceUnavailable)
				return
			}
			if !fresh {
				snap, done, err := store.Lookup(ctx, key)
				if err == nil && done && snap != nil {
					replay(w, snap)
					return
				}
				http.Error(w, "in progress", http.StatusConflict)
				return
			}
			rec := newRecorder(w)
			next.ServeHTTP(rec, r)
			bg := context.WithoutCancel(ctx)
			if rec.status >= http.StatusInternalServerError {
				_ = store.Release(bg, key)
				return
			}
			_ = store.Complete(bg, key, rec.snapshot())
		})
	}
}

// OrderAPI serves /orders.
type OrderAPI struct {
	orders   *mongo.Collection
	requests *mongo.Collection // _id: idempotency key
	db       *sqlx.DB
	rv       rueidis.Client
	charger  Charger
	log      *slog.Logger
}

// Routes mounts the order API.
func (a *OrderAPI) Routes(store KeyStore) chi.Router {
	r := chi.NewRouter()
	r.With(IdempotentReplay(store)).Post("/orders", a.CreateOrderReplaying)
	r.Post("/orders/legacy", a.CreateOrder)
	r.Post("/signups", a.Signup)
	r.Post("/checkout", a.Checkout)
	return r
}

type orderRequest struct {
	CustomerID string   `json:"customer_id"`
	SKUs       []string `json:"skus"`
}

type requestRecord struct {
	ID     string `bson:"_id"`
	State  string `bson:"state"`
	Status int    `bson:"status,omitempty"`
	Body   []byte `bson:"body,omitempty"`
}

func (a *OrderAPI) claimRequest(ctx context.Context, key string) (bool, error) {
	_, err := a.requests.InsertOne(ctx, requestRecord{ID: key, State: "processing"})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

func (a *OrderAPI) answerRepeat(w http.ResponseWriter, r *http.Request, key string) {
	var rec requestRecord
	if err := a.requests.FindOne(r.Context(), bson.D{{Key: "_id", Value: key}}).Decode(&rec); err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if rec.State != "completed" {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if rec.Status == 0 {
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Status)
	_, _ = w.Write(rec.Body)
}

// CreateOrder places an order once per Idempotency-Key.
//
// corpus: bug cacheresponse
// modelled on: LonelyPale/goutils database/mongodb/errors.go (unique-index E11000 on insert read as: the document exists)
func (a *OrderAPI) CreateOrder(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req orderRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claimRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.answerRepeat(w, r, key)
		return
	}
	orderID := uuid.NewString()
	if _, err := a.orders.InsertOne(ctx, bson.D{
		{Key: "_id", Value: orderID}, {Key: "customer_id", Value: req.CustomerID}, {Key: "skus", Value: req.SKUs},
	}); err != nil {
		_, _ = a.requests.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: key}})
		http.Error(w, "could not place order", http.StatusInternalServerError)
		return
	}
	_, _ = a.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "completed"}}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"order_id": orderID})
}

// CreateOrderRecorded places an order once per Idempotency-Key and keeps
// the answer on the request record for a repeat.
//
// corpus: ok cacheresponse
// modelled on: LonelyPale/goutils database/mongodb/errors.go (unique-index E11000 on insert read as: the document exists)
func (a *OrderAPI) CreateOrderRecorded(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var req orderRequest
	if key == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	fresh, err := a.claimRequest(ctx, key)
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if !fresh {
		a.answerRepeat(w, r, key)
		return
	}
	orderID := uuid.NewString()
	if _, err := a.orders.InsertOne(ctx, bson.D{
		{Key: "_id", Value: orderID}, {Key: "customer_id", Value: req.CustomerID}, {Key: "skus", Value: req.SKUs},
	}); err != nil {
		_, _ = a.requests.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: key}})
		http.Error(w, "could not place order", http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(map[string]string{"order_id": orderID})
	_, _ = a.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}},
		bson.D{{Key: "$set", Value: bson.D{
			{Key: "state", Value: "completed"},
			{Key: "status", Value: http.StatusCreated},
			{Key: "body", Value: body},
		}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// CreateOrderReplaying places an order; the IdempotentReplay middleware
// in front of it keeps the answer.
func (a *OrderAPI) CreateOrderReplaying(w http.ResponseWriter, r *http.Request) {
	var req orderRequest
	if json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	orderID := uuid.NewString()
	if _, err := a.orders.InsertOne(r.Context(), bson.D{
		{Key: "_id", Value: orderID}, {Key: "customer_id", Value: req.CustomerID}, {Key: "skus", Value: req.SKUs},
	}); err != nil {
		http.Error(w, "could not place order", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"order_id": orderID})
}

// Signup creates an account for an email address once.
//
// corpus: bug checkthenact
// modelled on: distributed-infras/messenger prototype/redis/main.go (SET and GET of a Redis key)
func (a *OrderAPI) Signup(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email string `json:"email"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Email == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	key := "signup:" + req.Email
	existing, err := a.rv.Do(ctx, a.rv.B().Get().Key(key).Build()).ToString()
	if err == nil {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"account_id": existing})
		return
	}
	if !rueidis.IsRedisNil(err) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	accountID := uuid.NewString()
	if _, err := a.db.ExecContext(ctx, `INSERT INTO accounts (id, email) VALUES ($1, $2)`, accountID, req.Email); err != nil {
		http.Error(w, "could not sign up", http.StatusInternalServerError)
		return
	}
	_ = a.rv.Do(ctx, a.rv.B().Set().Key(key).Value(accountID).ExSeconds(30*24*3600).Build()).Error()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"account_id": accountID})
}

// SignupOnce creates an account for an email address once: the email is
// taken with SET NX before the account is created, and given back when
// the insert fails.
//
// corpus: ok checkthenact
// modelled on: distributed-infras/messenger prototype/redis/main.go (SET and GET of a Redis key; here SET NX)
func (a *OrderAPI) SignupOnce(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Email string `json:"email"`
	}
	if json.NewDecoder(r.Body).Decode(&req) != nil || req.Email == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	key := "signup:" + req.Email
	accountID := uuid.NewString()
	err := a.rv.Do(ctx, a.rv.B().Set().Key(key).Value(accountID).Nx().ExSeconds(30*24*3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		existing, gerr := a.rv.Do(ctx, a.rv.B().Get().Key(key).Build()).ToString()
		if gerr != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"account_id": existing})
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if _, err := a.db.ExecContext(ctx, `INSERT INTO accounts (id, email) VALUES ($1, $2)`, accountID, req.Email); err != nil {
		a.rv.Do(context.WithoutCancel(ctx), a.rv.B().Del().Key(key).Build())
		http.Error(w, "could not sign up", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"account_id": accountID})
}

// Charger is the payments service client; it sends Key as the outgoing
// Idempotency-Key header.
type Charger interface {
	Charge(ctx context.Context, req ChargeReq) (string, error)
}

// ChargeReq is a charge request to the payments service.
type ChargeReq struct {
	IdempotencyKey string
	CustomerID     string
	Cents          int64
}

// HTTPCharger is the Charger over HTTP.
type HTTPCharger struct {
	hc  *http.Client
	url string
}

func (c *HTTPCharger) Charge(ctx context.Context, req ChargeReq) (string, error) {
	body, _ := json.Marshal(req)
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	hr.Header.Set("Idempotency-Key", req.IdempotencyKey)
	resp, err := c.hc.Do(hr)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		ChargeID string `json:"charge_id"`
	}
	if resp.StatusCode >= 300 {
		return "", errors.New("payments answered " + resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	return out.ChargeID, nil
}

type checkoutRequest struct {
	CustomerID string `json:"customer_id"`
	Cents      int64  `json:"cents"`
}

// Checkout charges the customer for their basket. Mobile clients retry
// the call on a timeout.
//
// corpus: bug attemptkey
// modelled on: Guilospanck/stripe-go-integration README.md (checkout and payment flow against Stripe, with retries around it)
func (a *OrderAPI) Checkout(w http.ResponseWriter, r *http.Request) {
	var req checkoutRequest
	if json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	chargeID, err := a.charger.Charge(r.Context(), ChargeReq{
		IdempotencyKey: uuid.NewString(),
		CustomerID:     req.CustomerID,
		Cents:          req.Cents,
	})
	if err != nil {
		http.Error(w, "payment failed", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"charge_id": chargeID})
}

// derive makes a downstream key from the client's key and a step name.
func derive(parent, step string) string {
	sum := sha256.Sum256([]byte(parent + "\x00" + step))
	return hex.EncodeToString(sum[:16])
}

// CheckoutKeyed charges the customer for their basket. Mobile clients
// retry the call on a timeout with the same Idempotency-Key, and the
// charge's key is derived from it.
//
// corpus: ok attemptkey
// modelled on: Guilospanck/stripe-go-integration README.md (checkout and payment flow against Stripe, with retries around it)
func (a *OrderAPI) CheckoutKeyed(w http.ResponseWriter, r *http.Request) {
	clientKey := r.Header.Get("Idempotency-Key")
	var req checkoutRequest
	if clientKey == "" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	chargeID, err := a.charger.Charge(r.Context(), ChargeReq{
		IdempotencyKey: derive(req.CustomerID+":"+clientKey, "charge"),
		CustomerID:     req.CustomerID,
		Cents:          req.Cents,
	})
	if err != nil {
		http.Error(w, "payment failed", http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"charge_id": chargeID})
}
