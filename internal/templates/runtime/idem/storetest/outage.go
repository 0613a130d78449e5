package storetest

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DialFunc opens a connection to a store's server. pgx's ConnConfig.DialFunc and go-redis's
// Options.Dialer have this shape.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// WithOutage adds the outage tests, for a store with a server. newStore returns a store, isolated
// as Run's are, that makes every connection to its server through dial: the suite cuts them off
// — closes each open connection and refuses new ones, as a failed network or a stopped server
// does — and later restores them. The stores must then fail closed with ErrStoreUnavailable, Do
// must not run the work, and what was stored before the outage must be there after it. The
// memory store has no server to lose and passes no outage.
func WithOutage(newStore func(t testing.TB, dial DialFunc) idem.Store) Option {
	return func(c *config) { c.outage = newStore }
}

// runOutage runs the outage tests, each on a store of its own behind a link of its own.
func runOutage(t *testing.T, newStore func(testing.TB, DialFunc) idem.Store) {
	for _, tt := range []struct {
		name string
		fn   func(t *testing.T, s idem.Store, l *link)
	}{
		{"OutageFailsClosed", testOutageFailsClosed},
		{"OutageDuringWork", testOutageDuringWork},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := &link{conns: map[*linkConn]struct{}{}}
			tt.fn(t, newStore(t, l.dial), l)
		})
	}
}

// testOutageFailsClosed: with the server cut off every operation fails with ErrStoreUnavailable
// and Do does not run the work; once it is back, a claim made before the outage completes with
// its token and replays.
func testOutageFailsClosed(t *testing.T, s idem.Store, l *link) {
	ctx := t.Context()
	held := mustClaim(t, s, "held", "fp", long, long)
	l.cut()
	resp := idem.Response{Status: 201, Body: []byte("after the outage")}
	for _, op := range []struct {
		name string
		fn   func() error
	}{
		{"Claim", func() error { _, err := s.Claim(ctx, "new", "fp", long, long); return err }},
		{"Complete", func() error { return s.Complete(ctx, "held", held.Token, resp, long) }},
		{"Extend", func() error { return s.Extend(ctx, "held", held.Token, long) }},
		{"Release", func() error { return s.Release(ctx, "held", held.Token) }},
		{"Get", func() error { _, err := s.Get(ctx, "held"); return err }},
	} {
		if err := op.fn(); !errors.Is(err, idem.ErrStoreUnavailable) {
			t.Errorf("%s with the server cut off = %v, want ErrStoreUnavailable", op.name, err)
		}
	}
	if _, err := idem.Do(ctx, s, "new", "fp", func(context.Context) (idem.Response, error) {
		t.Error("the work ran without a claim")
		return idem.Response{}, nil
	}); !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Do with the server cut off = %v, want ErrStoreUnavailable", err)
	}

	l.restore()
	if err := pollUp(t, func() error { return s.Complete(ctx, "held", held.Token, resp, long) }); err != nil {
		t.Fatalf("Complete after the outage with the claim made before it: %v", err)
	}
	if r := mustClaim(t, s, "held", "fp", long, long); r.Outcome != idem.Replay {
		t.Errorf("claim after the outage = %v, want replay", r.Outcome)
	} else {
		assertResponse(t, r.Record.Response, resp)
	}
	if c := mustClaim(t, s, "new", "fp", long, long); c.Outcome != idem.Claimed {
		t.Errorf("claim of the key Do tried during the outage = %v, want claimed: nothing was written", c.Outcome)
	}
}

// testOutageDuringWork: the server goes away while the work runs, so its response cannot be
// stored. Do reports ErrStoreUnavailable with the response unstored, and the key stays in
// progress rather than released: the work ran, and a retry must not run it again at once.
func testOutageDuringWork(t *testing.T, s idem.Store, l *link) {
	k := &idem.Keeper{Store: s, Lease: long, TTL: long}
	res, err := k.Do(t.Context(), "k", "fp", func(context.Context) (idem.Response, error) {
		l.cut()
		return idem.Response{Status: 201}, nil
	})
	if !errors.Is(err, idem.ErrStoreUnavailable) || res.Stored || res.Response.Status != 201 {
		t.Errorf("Do whose store went away during the work = %+v, %v; want the unstored 201 and ErrStoreUnavailable", res, err)
	}
	l.restore()
	var r idem.Record
	if err := pollUp(t, func() (err error) { r, err = s.Get(t.Context(), "k"); return err }); err != nil {
		t.Fatalf("Get after the outage: %v", err)
	}
	if r.State != idem.StateInProgress {
		t.Errorf("key after the failed Complete is %v, want in progress until its lease runs out", r.State)
	}
}

// pollUp runs op until it stops failing with ErrStoreUnavailable (a client may take a moment to
// reconnect), or until the deadline, and returns its last error.
func pollUp(t *testing.T, op func() error) error {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		err := op()
		if !errors.Is(err, idem.ErrStoreUnavailable) || time.Now().After(end) {
			return err
		}
		time.Sleep(short / 5)
	}
}

// link carries a store's connections to its server, and can be cut and restored.
type link struct {
	d     net.Dialer
	mu    sync.Mutex
	down  bool
	conns map[*linkConn]struct{}
}

var errCut = errors.New("storetest: the link to the server is cut")

func (l *link) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if l.isDown() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: errCut}
	}
	c, err := l.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		c.Close()
		return nil, &net.OpError{Op: "dial", Net: network, Err: errCut}
	}
	lc := &linkConn{Conn: c, l: l}
	l.conns[lc] = struct{}{}
	return lc, nil
}

func (l *link) isDown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.down
}

// cut closes every open connection and refuses new ones until restore.
func (l *link) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = true
	for c := range l.conns {
		c.Conn.Close()
	}
	clear(l.conns)
}

func (l *link) restore() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.down = false
}

type linkConn struct {
	net.Conn
	l *link
}

func (c *linkConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}
