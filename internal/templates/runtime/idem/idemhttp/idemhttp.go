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
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/textproto"
	"slices"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// HeaderReplayed marks a response replayed from the store.
const HeaderReplayed = "Idempotent-Replayed"

// replayedTrue is the value of every Idempotent-Replayed header, one slice for all replays rather
// than one each. Its capacity is its length, so an Add to the header makes a new one; only a
// handler wrapped around the middleware that overwrote a header value in place (which net/http
// and the Header methods never do) could change it.
var replayedTrue = []string{"true"}[:1:1]

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
	// Logger receives the events: replays and conflicts (409) at DEBUG, as retries make them
	// routine; a key reused for a different request and a fail-open bypass at WARN; a lost lease
	// and store errors at ERROR. Default slog.Default().
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
	p, ok := ctx.Value(requestKeyCtx{}).(*RequestKey)
	if !ok {
		return RequestKey{}, false
	}
	return *p, true
}

// keyContext is what context.WithValue(ctx, requestKeyCtx{}, rk) would be, in one allocation
// instead of two (the context and rk boxed in an interface): the value is handed out by pointer,
// and KeyFromContext copies it.
type keyContext struct {
	context.Context
	rk RequestKey
}

func (c *keyContext) Value(key any) any {
	if _, ok := key.(requestKeyCtx); ok {
		return &c.rk
	}
	return c.Context.Value(key)
}

func (c *keyContext) String() string {
	return fmt.Sprintf("%v.WithValue(idemhttp.RequestKey)", c.Context)
}

type middleware struct {
	Options
	methods   []string // Methods, copied: a few, found faster by a scan than in a map
	headerKey string   // Header as a key of http.Header
	// scopePrefix starts every scoped key (see exchange.scope): the namespace, and when Unscoped
	// the empty tenant after it, made once here rather than for each request.
	scopePrefix string
	fingerprint *idem.Fingerprinter
	log         *slog.Logger
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
	fp, err := idem.NewFingerprinter(opts.Exclude)
	if err != nil {
		return nil, fmt.Errorf("idemhttp: Options.Exclude: %w", err)
	}
	m := &middleware{Options: opts, fingerprint: fp, log: opts.Logger}
	if m.Header == "" {
		m.Header = HeaderKey
	}
	m.headerKey = textproto.CanonicalMIMEHeaderKey(m.Header)
	if m.Namespace == "" {
		m.Namespace = DefaultNamespace
	}
	m.scopePrefix = m.Namespace + ":"
	if m.Unscoped {
		m.scopePrefix += "0::" // the length of the empty tenant, and the tenant
	}
	if m.MaxBodyBytes <= 0 {
		m.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if m.MaxResponseBytes <= 0 {
		m.MaxResponseBytes = DefaultMaxResponseBytes
	}
	m.methods = slices.Clone(m.Methods)
	if len(m.methods) == 0 {
		m.methods = []string{http.MethodPost, http.MethodPatch}
	}
	if m.log == nil {
		m.log = slog.Default()
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, next) })
	}, nil
}

func (m *middleware) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if !slices.Contains(m.methods, r.Method) {
		next.ServeHTTP(w, r)
		return
	}
	key, err := ParseKey(r.Header[m.headerKey])
	if err != nil {
		switch {
		case errors.Is(err, ErrNoKey) && m.Optional:
			next.ServeHTTP(w, r)
		case errors.Is(err, ErrNoKey):
			writeProblem(w, problemNoKey.with("send the key in the "+m.Header+" header"))
		default:
			writeProblem(w, problemMalformed.with(err.Error()))
		}
		return
	}
	var tenant string
	if m.Tenant != nil {
		if tenant, err = m.Tenant(r); err != nil || tenant == "" {
			writeProblem(w, problemNoTenant.with(fmt.Sprint(err)))
			return
		}
	}
	x := getExchange()
	if err := x.readBody(w, r, m.MaxBodyBytes); err != nil {
		x.release()
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeProblem(w, problemTooLarge.with(fmt.Sprintf("the limit is %d bytes", m.MaxBodyBytes)))
			return
		}
		writeProblem(w, problemMalformed.with("reading the body: "+err.Error()))
		return
	}
	x.m, x.next, x.r, x.origBody = m, next, r, r.Body
	r.Body = &x.reader
	route := m.route(r)
	var contentType string
	if v := r.Header["Content-Type"]; len(v) > 0 {
		contentType = v[0]
	}
	scoped, fp := x.scope(m, tenant, r.Method, route, key, contentType)
	x.rk = RequestKey{Key: key, Tenant: tenant, Scoped: scoped}

	res, err := m.Keeper.Do(r.Context(), x.rk.Scoped, fp, x.work)
	switch {
	case x.unrecorded != nil:
		msg := "idempotency: handler ran but BeforeStore failed; key released for a retry"
		if errors.Is(err, idem.ErrNotReleased) || errors.Is(err, idem.ErrLeaseLost) {
			// The key stays claimed (by this request until its lease runs out, or by whoever
			// took it over): a retry meanwhile gets 409, not a run.
			msg = "idempotency: handler ran but BeforeStore failed, and the key could not be released; retries get 409 until its lease runs out"
		}
		m.event(r, slog.LevelError, msg, key, tenant, route, slog.Any("err", err), slog.Attr{})
		m.Hooks.storeError(r, key, err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, problemUnrecorded)
	case x.ran: // the handler ran for this request: its client gets its response
		if err != nil {
			m.ranWithError(r, key, tenant, route, err)
		}
		if m.BeforeStore != nil {
			// BeforeStore had the header map, and what it did to it goes to the client too.
			send(w, x.rec.header, x.rec.statusCode(), x.rec.body.Bytes(), false)
		} else {
			sendFields(w, x.rec.fields, x.rec.statusCode(), x.rec.body.Bytes())
		}
	case err == nil && res.Replayed:
		m.event(r, slog.LevelDebug, "idempotency: replayed stored response", key, tenant, route, slog.Int("status", res.Response.Status), slog.Attr{})
		m.Hooks.replay(r, key)
		send(w, res.Response.Header, res.Response.Status, res.Response.Body, true)
	default:
		m.refuse(w, r, next, err, key, tenant, route)
	}
	x.release()
}

// refuse answers a request whose handler did not run, for Do's error err: a conflict, a
// mismatch, an invalid key, or a store that could not answer.
func (m *middleware) refuse(w http.ResponseWriter, r *http.Request, next http.Handler, err error, key, tenant, route string) {
	if inProgress, ok := errors.AsType[*idem.InProgressError](err); ok {
		m.event(r, slog.LevelDebug, "idempotency: request in progress", key, tenant, route, slog.Duration("retry_after", inProgress.RetryAfter), slog.Attr{})
		m.Hooks.conflict(r, key, inProgress.RetryAfter)
		w.Header().Set("Retry-After", retryAfter(inProgress.RetryAfter))
		writeProblem(w, problemInProgress)
		return
	}
	if mismatch, ok := errors.AsType[*idem.MismatchError](err); ok {
		m.event(r, slog.LevelWarn, "idempotency: key reused for a different request", key, tenant, route,
			slog.String("stored_fingerprint", mismatch.Stored), slog.String("fingerprint", mismatch.Got))
		m.Hooks.mismatch(r, key, mismatch)
		writeProblem(w, problemMismatch)
		return
	}
	switch {
	case errors.Is(err, idem.ErrInvalid):
		writeProblem(w, problemMalformed.with("the key and its scope are too long or not text"))
	case r.Context().Err() != nil:
		// The client left before anything ran; there is no one to answer.
	case m.FailOpen:
		m.event(r, slog.LevelWarn, "idempotency: store unavailable, handler runs unprotected (fail open)", key, tenant, route, slog.Any("err", err), slog.Attr{})
		m.Hooks.bypass(r, key, err)
		next.ServeHTTP(w, r)
	default:
		m.event(r, slog.LevelError, "idempotency: store unavailable, request refused", key, tenant, route, slog.Any("err", err), slog.Attr{})
		m.Hooks.storeError(r, key, err)
		w.Header().Set("Retry-After", "1")
		writeProblem(w, problemUnavailable)
	}
}

// event logs one of the middleware's events with the request's key and scope, and up to two
// attributes of its own (a zero Attr is left out). Nothing is built unless the logger takes the
// level: replays and conflicts, logged at DEBUG, cost nothing in production.
func (m *middleware) event(r *http.Request, level slog.Level, msg, key, tenant, route string, a1, a2 slog.Attr) {
	ctx := r.Context()
	if !m.log.Enabled(ctx, level) {
		return
	}
	m.log.LogAttrs(ctx, level, msg, slog.String("key", key), slog.String("tenant", tenant),
		slog.String("method", r.Method), slog.String("route", route), a1, a2)
}

// toStore is what gets stored for a response: itself without hop-by-hop headers, or, when its
// body is over MaxResponseBytes and it would be stored, the response-too-large problem.
func (m *middleware) toStore(rec *recorder) idem.Response {
	resp := idem.Response{Status: rec.statusCode(), Header: storable(rec.header, rec.readFields()), Body: rec.body.Bytes()}
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
func (m *middleware) ranWithError(r *http.Request, key, tenant, route string, err error) {
	if errors.Is(err, idem.ErrLeaseLost) {
		m.event(r, slog.LevelError, "idempotency: lease lost while the handler ran; another request may have run it too", key, tenant, route, slog.Any("err", err), slog.Attr{})
		m.Hooks.leaseLost(r, key, err)
		return
	}
	if r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
		return // the client left; the key was released for its retry
	}
	m.event(r, slog.LevelError, "idempotency: handler ran but its outcome was not recorded", key, tenant, route, slog.Any("err", err), slog.Attr{})
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

// send writes a response. Its header values are shared with h, not copied, each capped at its
// length so that an Add further out cannot write into h; replayed adds Idempotent-Replayed.
func send(w http.ResponseWriter, h http.Header, status int, body []byte, replayed bool) {
	dst := w.Header()
	for k, v := range h {
		dst[k] = v[:len(v):len(v)]
	}
	if replayed {
		dst[HeaderReplayed] = replayedTrue
	}
	writeBody(w, status, body)
}

// sendFields is send of the response the handler ran for, whose header the recorder read into
// fields (see recorder.readFields).
func sendFields(w http.ResponseWriter, fields []headerField, status int, body []byte) {
	dst := w.Header()
	for _, f := range fields {
		dst[f.key] = f.values[:len(f.values):len(f.values)]
	}
	writeBody(w, status, body)
}

// writeBody ends a response after its header: the status, 200 if the handler set none, and the
// body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}
