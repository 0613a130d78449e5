package resilience

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// idemTransport stamps an Idempotency-Key on every POST it carries, so
// that callers need not think about one. It runs once for each attempt:
// the payouts client below retries through the http.Client, and each
// retry reaches the service under a key of its own.
type idemTransport struct {
	next http.RoundTripper
}

// RoundTrip adds the key to a copy of the request.
//
// corpus: bug attemptkey
// modelled on: folkzb/magalu mgc/sdk/sdk_transport.go (a RoundTripper that stamps a fresh uuid header on every request)
func (t *idemTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return t.next.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Idempotency-Key", uuid.New().String())
	return t.next.RoundTrip(r)
}

// opKey carries the key of one logical operation in a context.
type opKey struct{}

// WithOperationKey names one logical operation; the caller does this once,
// before any retry, and every attempt made under ctx carries the name.
func WithOperationKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, opKey{}, key)
}

// keyTransport passes on the key its caller named the operation with, and
// a fresh request ID for the logs.
type keyTransport struct {
	next http.RoundTripper
}

// RoundTrip copies the operation's key from the request's context.
//
// corpus: ok attemptkey
// modelled on: alexfalkowski/go-service pkg/transport/http/meta/meta.go (a RoundTripper that takes the ID from the request's context)
func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if key, ok := req.Context().Value(opKey{}).(string); ok {
		r.Header.Set("Idempotency-Key", key)
	}
	r.Header.Set("X-Request-Id", uuid.New().String())
	return t.next.RoundTrip(r)
}

// PayoutsHTTP builds the payouts client's HTTP stack.
func PayoutsHTTP(keyed bool) *http.Client {
	if keyed {
		return &http.Client{Transport: &keyTransport{next: http.DefaultTransport}}
	}
	return &http.Client{Transport: &idemTransport{next: http.DefaultTransport}}
}

// SendPayout posts one payout; the transport supplies the key.
func SendPayout(ctx context.Context, hc *http.Client, url string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// IdempotencyInterceptor gives every unary call to the ledger service an
// idempotency key in its metadata. The connection's retry policy and the
// callers' own retries call it again for each attempt, each time with a
// new key.
//
// corpus: bug attemptkey
// modelled on: alexfalkowski/go-service pkg/transport/grpc/meta/meta.go (a unary client interceptor that adds IDs to the outgoing metadata)
func IdempotencyInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", uuid.NewString())
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// OperationKeyInterceptor forwards the operation's key from the context
// the caller named it in, and tags each attempt with a request ID.
//
// corpus: ok attemptkey
// modelled on: alexfalkowski/go-service pkg/transport/grpc/meta/meta.go (a unary client interceptor that adds IDs to the outgoing metadata)
func OperationKeyInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if key, ok := ctx.Value(opKey{}).(string); ok {
			ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", key)
		}
		ctx = metadata.AppendToOutgoingContext(ctx, "x-request-id", uuid.NewString())
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}
