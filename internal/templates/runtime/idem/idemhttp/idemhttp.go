// Package idemhttp is net/http middleware that makes a handler idempotent under the
// Idempotency-Key header: a retried request gets the first one's stored response, without the
// handler running again. It works under any router that takes a func(http.Handler) http.Handler
// (chi directly; echo and gin through their net/http adapters).
//
// What it answers, and why:
//   - no key on a method that needs one: 400; a malformed key: 400 — before anything is stored;
//   - a body over MaxBodyBytes: 413, nothing claimed;
//   - a new key: the handler runs once, its 2xx and 4xx responses are stored for the Keeper's TTL;
//     a 5xx, a panic or a cancelled request releases the key so the retry runs it again;
//   - the same key and request again: the stored status, headers and body, with
//     Idempotent-Replayed: true;
//   - the same key while the first request runs: 409 with Retry-After;
//   - the same key with a different request: 422, logged — the key was reused by mistake;
//   - the store unreachable: 503, handler not run (fail closed), unless FailOpen, where every
//     bypass is logged.
//
// Stored keys are scoped by namespace, tenant (from a required extractor, or explicitly
// Unscoped), method and route, so one tenant can never replay another's response. The
// fingerprint is the method, route and body, canonical JSON with Exclude fields removed.
package idemhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// HeaderReplayed marks a response replayed from the store.
const HeaderReplayed = "Idempotent-Replayed"

// Defaults for Options fields left zero.
const (
	DefaultNamespace        = "idem"
	DefaultMaxBodyBytes     = 1 << 20
	DefaultMaxResponseBytes = 1 << 20
)

// Options configures the middleware.
type Options struct {
	// Keeper runs the handler at most once per key; its Store, lease and TTL apply. Required.
	Keeper *idem.Keeper
	// Tenant returns who the request acts for (an account ID from the authenticated session),
	// so keys of different tenants never meet. Required unless Unscoped; an error or an empty
	// tenant answers 400.
	Tenant func(*http.Request) (string, error)
	// Unscoped, instead of Tenant, declares that all callers share one key space — right only
	// when there is a single caller.
	Unscoped bool
	// Namespace separates services that share a store. Default DefaultNamespace.
	Namespace string
	// Route names the operation for the key scope and fingerprint. Default: the ServeMux
	// pattern that matched (r.Pattern) when the middleware wraps a routed handler, else the
	// escaped URL path.
	Route func(*http.Request) string
	// Header is the request header that carries the key. Default HeaderKey (Idempotency-Key).
	Header string
	// Methods that take a key. Default POST and PATCH, the methods that are not idempotent by
	// definition; other methods pass through untouched.
	Methods []string
	// Optional lets requests without a key through, unprotected. By default a key is required.
	Optional bool
	// Exclude lists JSON body fields left out of the fingerprint (see idem.CanonicalJSON), such
	// as a client timestamp that changes on every retry.
	Exclude []string
	// MaxBodyBytes bounds the request body, which is read whole to fingerprint it; a larger one
	// answers 413 and claims nothing. Default DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxResponseBytes bounds the stored response body. A larger cacheable response still goes
	// to the client in full, but what is stored — and replayed to retries — is a problem
	// document (type response-too-large) with the original status, saying the request ran once
	// and will not run again with this key: a retry never re-executes silently.
	// Default DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// BeforeStore, when set, runs after the handler with the response about to be stored, in the
	// handler's context, before the key is completed: for what must be written whenever a
	// response is, such as an audit row. An error stands the response down: the key is released,
	// the client gets a 503 problem (outcome-unrecorded) and its retry runs the handler again.
	BeforeStore func(r *http.Request, k RequestKey, resp idem.Response) error
	// FailOpen runs the handler without protection when the store is unreachable, logging every
	// bypass, instead of answering 503. Duplicates become possible while the store is down.
	FailOpen bool
	// Logger receives the events (replay, conflict, mismatch, lease lost, store error, bypass).
	// Default slog.Default().
	Logger *slog.Logger
	// Hooks are called on the same events, for metrics.
	Hooks Hooks
}

// Hooks are optional callbacks on the middleware's events; nil fields are skipped. key is the
// client's key.
type Hooks struct {
	Replay     func(r *http.Request, key string)
	Conflict   func(r *http.Request, key string, retryAfter time.Duration)
	Mismatch   func(r *http.Request, key string, err *idem.MismatchError)
	LeaseLost  func(r *http.Request, key string, err error)
	StoreError func(r *http.Request, key string, err error)
	Bypass     func(r *http.Request, key string, err error)
}

func (h Hooks) replay(r *http.Request, key string) {
	if h.Replay != nil {
		h.Replay(r, key)
	}
}

func (h Hooks) conflict(r *http.Request, key string, d time.Duration) {
	if h.Conflict != nil {
		h.Conflict(r, key, d)
	}
}

func (h Hooks) mismatch(r *http.Request, key string, err *idem.MismatchError) {
	if h.Mismatch != nil {
		h.Mismatch(r, key, err)
	}
}

func (h Hooks) leaseLost(r *http.Request, key string, err error) {
	if h.LeaseLost != nil {
		h.LeaseLost(r, key, err)
	}
}

func (h Hooks) storeError(r *http.Request, key string, err error) {
	if h.StoreError != nil {
		h.StoreError(r, key, err)
	}
}

func (h Hooks) bypass(r *http.Request, key string, err error) {
	if h.Bypass != nil {
		h.Bypass(r, key, err)
	}
}

// RequestKey is what the middleware claimed for the request whose handler it runs.
type RequestKey struct {
	// Key is the client's key, as the request sent it.
	Key string
	// Tenant is who the request acts for, as Options.Tenant answered; empty when Unscoped.
	Tenant string
	// Scoped is the key in the store: the namespace, tenant, method, route and client's key.
	Scoped string
}

type requestKeyCtx struct{}

// KeyFromContext returns the key the middleware claimed for the request, from the context of the
// request it passes to the handler; ok is false for a request it let through unclaimed (another
// method, or no key under Optional) and outside the middleware.
func KeyFromContext(ctx context.Context) (k RequestKey, ok bool) {
	k, ok = ctx.Value(requestKeyCtx{}).(RequestKey)
	return k, ok
}

type middleware struct {
	Options
	methods map[string]bool
	log     *slog.Logger
}

// New checks opts and returns the middleware. It refuses a configuration that would silently
// weaken the guarantees: no store, or neither a tenant extractor nor an explicit Unscoped.
func New(opts Options) (func(http.Handler) http.Handler, error) {
	switch {
	case opts.Keeper == nil || opts.Keeper.Store == nil:
		return nil, errors.New("idemhttp: Options.Keeper with a Store is required")
	case opts.Tenant == nil && !opts.Unscoped:
		return nil, errors.New("idemhttp: set Options.Tenant to scope keys per tenant, or Options.Unscoped to share one key space")
	case opts.Tenant != nil && opts.Unscoped:
		return nil, errors.New("idemhttp: Options.Tenant and Options.Unscoped exclude each other")
	}
	if _, err := idem.Fingerprint("", "", nil, "", opts.Exclude); err != nil {
		return nil, fmt.Errorf("idemhttp: Options.Exclude: %w", err)
	}
	m := &middleware{Options: opts, methods: map[string]bool{}, log: opts.Logger}
	if m.Header == "" {
		m.Header = HeaderKey
	}
	if m.Namespace == "" {
		m.Namespace = DefaultNamespace
	}
	if m.MaxBodyBytes <= 0 {
		m.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if m.MaxResponseBytes <= 0 {
		m.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if len(m.Methods) == 0 {
		m.Methods = []string{http.MethodPost, http.MethodPatch}
	}
	for _, method := range m.Methods {
		m.methods[method] = true
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, next) })
	}, nil
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !m.methods[r.Method] {
		next.ServeHTTP(w, r)
		return
	}
	key, err := ParseKey(r.Header.Values(m.Header))
	switch {
	case errors.Is(err, ErrNoKey) && m.Optional:
		next.ServeHTTP(w, r)
		return
	case errors.Is(err, ErrNoKey):
		writeProblem(w, problemNoKey.with("send the key in the "+m.Header+" header"))
		return
	case err != nil:
		writeProblem(w, problemMalformed.with(err.Error()))
		return
	}
	var tenant string
	if m.Tenant != nil {
		if tenant, err = m.Tenant(r); err != nil || tenant == "" {
			writeProblem(w, problemNoTenant.with(fmt.Sprint(err)))
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, m.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeProblem(w, problemTooLarge.with(fmt.Sprintf("the limit is %d bytes", m.MaxBodyBytes)))
			return
		}
		writeProblem(w, problemMalformed.with("reading the body: "+err.Error()))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	route := m.route(r)
	// Exclude was checked in New, so Fingerprint cannot fail here.
	fp, _ := idem.Fingerprint(r.Method, route, body, r.Header.Get("Content-Type"), m.Exclude)
	// Lengths make the scope unambiguous whatever the tenant and route contain.
	scoped := fmt.Sprintf("%s:%d:%s:%s:%d:%s:%s", m.Namespace, len(tenant), tenant, r.Method, len(route), route, key)

	var (
		rec        *recorder
		unrecorded error // BeforeStore's
	)
	res, err := m.Keeper.Do(r.Context(), scoped, fp, func(ctx context.Context) (idem.Response, error) {
		rec = newRecorder()
		rk := RequestKey{Key: key, Tenant: tenant, Scoped: scoped}
		r := r.WithContext(context.WithValue(ctx, requestKeyCtx{}, rk))
		next.ServeHTTP(rec, r)
		resp := m.toStore(rec)
		if m.BeforeStore != nil && m.Keeper.Caches(resp) {
			if err := m.BeforeStore(r, rk, resp); err != nil {
				unrecorded = err
				return resp, err
			}
		}
		return resp, nil
	})
	log := m.log.With("key", key, "tenant", tenant, "method", r.Method, "route", route)
	var (
		inProgress *idem.InProgressError
		mismatch   *idem.MismatchError
	)
	switch {
	case unrecorded != nil:
		log.Error("idempotency: handler ran but BeforeStore failed; key released for a retry", "err", err)
		m.Hooks.storeError(r, key, err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, problemUnrecorded)
	case rec != nil: // the handler ran for this request: its client gets its response
		if err != nil {
			m.ranWithError(r, log, key, err)
		}
		send(w, rec.header, rec.statusCode(), rec.body.Bytes())
	case err == nil && res.Replayed:
		log.Info("idempotency: replayed stored response", "status", res.Response.Status)
		m.Hooks.replay(r, key)
		h := res.Response.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
		h.Set(HeaderReplayed, "true")
		send(w, h, res.Response.Status, res.Response.Body)
	case errors.As(err, &inProgress):
		log.Info("idempotency: request in progress", "retry_after", inProgress.RetryAfter)
		m.Hooks.conflict(r, key, inProgress.RetryAfter)
		w.Header().Set("Retry-After", retryAfter(inProgress.RetryAfter))
		writeProblem(w, problemInProgress)
	case errors.As(err, &mismatch):
		log.Warn("idempotency: key reused for a different request", "stored_fingerprint", mismatch.Stored, "fingerprint", mismatch.Got)
		m.Hooks.mismatch(r, key, mismatch)
		writeProblem(w, problemMismatch)
	case errors.Is(err, idem.ErrInvalid):
		writeProblem(w, problemMalformed.with("the key and its scope are too long or not text"))
	case r.Context().Err() != nil:
		// The client left before anything ran; there is no one to answer.
	case m.FailOpen:
		log.Warn("idempotency: store unavailable, handler runs unprotected (fail open)", "err", err)
		m.Hooks.bypass(r, key, err)
		next.ServeHTTP(w, r)
	default:
		log.Error("idempotency: store unavailable, request refused", "err", err)
		m.Hooks.storeError(r, key, err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, problemUnavailable)
	}
}

// toStore is what gets stored for a response: itself without hop-by-hop headers, or, when its
// body is over MaxResponseBytes and it would be stored, the response-too-large problem.
func (m *middleware) toStore(rec *recorder) idem.Response {
	resp := idem.Response{Status: rec.statusCode(), Header: storable(rec.header), Body: rec.body.Bytes()}
	if int64(len(resp.Body)) <= m.MaxResponseBytes || !m.Keeper.Caches(resp) {
		return resp
	}
	p := problemOversize
	p.Status = resp.Status
	return idem.Response{
		Status: p.Status,
		Header: http.Header{"Content-Type": {"application/problem+json"}},
		Body:   p.body(),
	}
}

// ranWithError reports what went wrong around a handler that did run: its lease was lost (another
// holder may have run it too), or its response could not be stored or its key released.
func (m *middleware) ranWithError(r *http.Request, log *slog.Logger, key string, err error) {
	if errors.Is(err, idem.ErrLeaseLost) {
		log.Error("idempotency: lease lost while the handler ran; another request may have run it too", "err", err)
		m.Hooks.leaseLost(r, key, err)
		return
	}
	if r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
		return // the client left; the key was released for its retry
	}
	log.Error("idempotency: handler ran but its outcome was not recorded", "err", err)
	m.Hooks.storeError(r, key, err)
}

func (m *middleware) route(r *http.Request) string {
	if m.Route != nil {
		return m.Route(r)
	}
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.URL.EscapedPath()
}

func send(w http.ResponseWriter, h http.Header, status int, body []byte) {
	for k, v := range h {
		w.Header()[k] = v
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}
