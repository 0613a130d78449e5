package idemhttp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// exchange is one request's passage through the middleware: what the handler's run needs, and
// the buffers it reuses. Exchanges are pooled, and work is bound once per exchange, so a request
// hands Keeper.Do its work without allocating a closure.
type exchange struct {
	m    *middleware
	next http.Handler
	r    *http.Request
	rk   RequestKey
	// body is the request body, read whole; reader serves it again to the handler.
	body   []byte
	reader bodyReader
	scoped []byte
	rec    recorder
	// origBody is the request's own body, put back when the exchange is done with it.
	origBody io.ReadCloser
	// ran says that the handler ran for this request; unrecorded is BeforeStore's error.
	ran        bool
	unrecorded error
	work       idem.Func
}

// maxPooledBody keeps the pool from holding on to the buffer of a rare large body.
const maxPooledBody = 64 << 10

var exchanges = sync.Pool{New: func() any {
	x := &exchange{rec: recorder{header: http.Header{}}}
	x.work = x.run
	return x
}}

func getExchange() *exchange { return exchanges.Get().(*exchange) }

// release returns x to the pool once the response is sent. The handler has returned by then, and
// with it every use of the request body; the recorder's header map and body buffer serve again
// unless they went to BeforeStore (see recorder). The request gets its own body back, so that
// nothing that reads it later can see another request's body through the pooled reader.
func (x *exchange) release() {
	if x.r != nil {
		x.r.Body = x.origBody
	}
	x.rec.reset(x.ran && x.m.BeforeStore != nil)
	x.m, x.next, x.r, x.origBody, x.rk, x.ran, x.unrecorded = nil, nil, nil, nil, RequestKey{}, false, nil
	x.reader.Reset(nil)
	if cap(x.body) > maxPooledBody {
		x.body = nil
	}
	exchanges.Put(x)
}

// readBody reads the request body whole into x.body, at most max bytes (http.MaxBytesError
// beyond, and the connection is closed after the answer).
func (x *exchange) readBody(w http.ResponseWriter, r *http.Request, max int64) error {
	src := http.MaxBytesReader(w, r.Body, max)
	buf := x.body[:0]
	if n := r.ContentLength; n >= int64(cap(buf)) && n < max {
		buf = make([]byte, 0, n+1) // +1: the read that finds the end needs no growth
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			x.body = buf
			return err
		}
	}
	x.body = buf
	x.reader.Reset(buf)
	return nil
}

// scope returns the key in the store — namespace, tenant, method, route and the client's key,
// with the lengths that make it unambiguous whatever the tenant and route contain — and the
// request's fingerprint, both cut from one string: one allocation for the two, which the store
// keeps and lets go of together.
func (x *exchange) scope(m *middleware, tenant, method, route, key, contentType string) (scoped, fingerprint string) {
	b := append(x.scoped[:0], m.scopePrefix...)
	if !m.Unscoped {
		b = strconv.AppendInt(b, int64(len(tenant)), 10)
		b = append(b, ':')
		b = append(b, tenant...)
		b = append(b, ':')
	}
	b = append(b, method...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(route)), 10)
	b = append(b, ':')
	b = append(b, route...)
	b = append(b, ':')
	b = append(b, key...)
	n := len(b)
	b = m.fingerprint.AppendFingerprint(b, method, route, x.body, contentType)
	x.scoped = b
	s := string(b)
	return s[:n], s[n:]
}

// run is the work Keeper.Do runs for a request that holds its key: the handler, recorded.
func (x *exchange) run(ctx context.Context) (idem.Response, error) {
	x.ran = true
	m := x.m
	kr := &keyedRequest{ctx: keyContext{Context: ctx, rk: x.rk}}
	kr.r = *x.r.WithContext(&kr.ctx) // inlined: the copy WithContext makes stays on the stack
	r := &kr.r
	x.next.ServeHTTP(&x.rec, r)
	resp := m.toStore(&x.rec)
	if m.BeforeStore != nil && m.Keeper.Caches(resp) {
		if err := m.BeforeStore(r, x.rk, resp); err != nil {
			x.unrecorded = err
			return resp, err
		}
	}
	return resp, nil
}

// keyedRequest is the request the handler gets and its context, in one allocation where
// WithContext and the context would make two. Neither is pooled: a handler may keep its request,
// or the context, after it returns.
type keyedRequest struct {
	r   http.Request
	ctx keyContext
}

// bodyReader serves the body read by the middleware to the handler.
type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }
