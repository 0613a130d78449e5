package attemptkey

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// A transport runs once for each HTTP attempt, below whatever retries.
type idemTransport struct{ next http.RoundTripper }

func (t *idemTransport) RoundTrip(req *http.Request) (*http.Response, error) { // want RoundTrip:"parameter 0 reaches RoundTrip, whose request parameter reaches the Idempotency-Key header"
	r := req.Clone(req.Context())
	if r.Method == http.MethodPost {
		r.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the HTTP transport RoundTrip at transport.go:\d+ reaches the Idempotency-Key header`
	}
	return t.next.RoundTrip(r)
}

type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func withIdemKey(next http.RoundTripper) http.RoundTripper {
	return transportFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Idempotency-Key", uuid.NewString()) // want `inside the HTTP transport at transport.go:\d+ reaches the Idempotency-Key header`
		return next.RoundTrip(r)
	})
}

type opKey struct{}

// withOperation names one logical operation, before its retries.
func withOperation(ctx context.Context) context.Context {
	return context.WithValue(ctx, opKey{}, uuid.NewString())
}

// A transport that passes on the key the caller made once, and a fresh
// request ID, which no one deduplicates by.
type keyTransport struct{ next http.RoundTripper }

func (t *keyTransport) RoundTrip(req *http.Request) (*http.Response, error) { // want RoundTrip:"parameter 0 reaches the Idempotency-Key header"
	r := req.Clone(req.Context())
	if k, ok := req.Context().Value(opKey{}).(string); ok {
		r.Header.Set("Idempotency-Key", k)
	}
	r.Header.Set("X-Request-Id", uuid.NewString())
	return t.next.RoundTrip(r)
}

// A gRPC client interceptor runs once for each call, retried or not.
func idemInterceptor(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", uuid.NewString()) // want `inside the gRPC client interceptor idemInterceptor at transport.go:\d+ reaches the idempotency-key metadata`
	return invoker(ctx, method, req, reply, cc, opts...)
}

func streamIdem() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", uuid.NewString()) // want `inside the gRPC client interceptor at transport.go:\d+`
		return streamer(ctx, desc, cc, method, opts...)
	}
}

func keyInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if k, ok := ctx.Value(opKey{}).(string); ok {
			ctx = metadata.AppendToOutgoingContext(ctx, "idempotency-key", k)
		}
		ctx = metadata.AppendToOutgoingContext(ctx, "x-request-id", uuid.NewString())
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}
