package idem_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// clock is a time a test moves by hand.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time          { return c.now }
func (c *clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

func TestMemoryBoundedEntries(t *testing.T) {
	t.Parallel()
	c := &clock{now: time.Unix(1e9, 0)}
	s := idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: 2, Now: c.Now})
	ctx := t.Context()
	for _, k := range []string{"a", "b"} {
		if _, err := s.Claim(ctx, k, "fp", time.Second, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.Claim(ctx, "c", "fp", time.Second, time.Minute)
	if !errors.Is(err, idem.ErrStoreFull) || !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Fatalf("claim into a full store = %v, want ErrStoreFull (an ErrStoreUnavailable)", err)
	}
	if !strings.Contains(err.Error(), "MaxEntries") || !strings.Contains(err.Error(), " 2 ") {
		t.Errorf("the full store's error %q does not say which bound to raise and what it is", err)
	}
	if _, err := s.Claim(ctx, "a", "fp", time.Second, time.Minute); err != nil {
		t.Errorf("a full store must still answer for its own keys: %v", err)
	}
	c.Advance(time.Minute)
	if got, err := s.Claim(ctx, "c", "fp", time.Second, time.Minute); err != nil || got.Outcome != idem.Claimed {
		t.Errorf("claim once the others expired = %v, %v; want claimed", got.Outcome, err)
	}
	if n := s.Len(); n != 1 {
		t.Errorf("Len = %d, want 1 live record", n)
	}
}

func TestMemoryBoundedBytes(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{MaxBytes: 4096})
	ctx := t.Context()
	c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Complete(ctx, "k", c.Token, idem.Response{Status: 200, Body: make([]byte, 8192)}, time.Minute)
	if !errors.Is(err, idem.ErrStoreFull) {
		t.Fatalf("Complete over MaxBytes = %v, want ErrStoreFull", err)
	}
	if !strings.Contains(err.Error(), "MaxBytes") || !strings.Contains(err.Error(), "4096") {
		t.Errorf("the full store's error %q does not say which bound to raise and what it is", err)
	}
	if r, err := s.Get(ctx, "k"); err != nil || r.State != idem.StateInProgress {
		t.Errorf("after a refused Complete Get = %+v, %v; want still in progress", r, err)
	}
	if err := s.Complete(ctx, "k", c.Token, idem.Response{Status: 200, Body: make([]byte, 1024)}, time.Minute); err != nil {
		t.Errorf("Complete within MaxBytes: %v", err)
	}
}

func TestMemoryExpiryByClock(t *testing.T) {
	t.Parallel()
	c := &clock{now: time.Unix(1e9, 0)}
	s := idem.NewMemoryStore(idem.MemoryOptions{Now: c.Now})
	ctx := t.Context()
	cl, err := s.Claim(ctx, "k", "fp", time.Second, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(999 * time.Millisecond)
	if got, _ := s.Claim(ctx, "k", "fp", time.Second, time.Hour); got.Outcome != idem.InProgress || got.RetryAfter != time.Millisecond {
		t.Errorf("claim 1ms before the lease ends = %v retry %v", got.Outcome, got.RetryAfter)
	}
	c.Advance(time.Millisecond)
	taken, _ := s.Claim(ctx, "k", "fp", time.Second, time.Hour)
	if taken.Outcome != idem.TakenOver {
		t.Fatalf("claim as the lease ends = %v, want taken over", taken.Outcome)
	}
	if err := s.Complete(ctx, "k", cl.Token, idem.Response{}, time.Minute); !errors.Is(err, idem.ErrLeaseLost) {
		t.Errorf("old holder's Complete = %v", err)
	}
	if err := s.Complete(ctx, "k", taken.Token, idem.Response{Status: 200}, time.Minute); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute - time.Millisecond)
	if got, _ := s.Claim(ctx, "k", "fp", time.Second, time.Hour); got.Outcome != idem.Replay {
		t.Errorf("claim just inside the TTL = %v, want replay", got.Outcome)
	}
	c.Advance(time.Millisecond)
	if got, _ := s.Claim(ctx, "k", "other", time.Second, time.Hour); got.Outcome != idem.Claimed {
		t.Errorf("claim at the TTL = %v, want claimed", got.Outcome)
	}
}

// TestMemoryRecordTimes: the times in the records a memory store hands out are its clock's
// reading of the operation plus the lease or TTL, however far the clock has moved since the
// store began keeping time.
func TestMemoryRecordTimes(t *testing.T) {
	t.Parallel()
	start := time.Unix(1e9, 0)
	c := &clock{now: start}
	s := idem.NewMemoryStore(idem.MemoryOptions{Now: c.Now})
	ctx := t.Context()
	c.Advance(time.Hour)
	claimed := start.Add(time.Hour)
	cl, err := s.Claim(ctx, "k", "fp", 30*time.Second, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, r idem.Record, lease, expires time.Time) {
		t.Helper()
		if !r.LeaseExpires.Equal(lease) || !r.Expires.Equal(expires) {
			t.Errorf("%s: lease expires %v, expires %v; want %v and %v", what, r.LeaseExpires, r.Expires, lease, expires)
		}
	}
	check("claim", cl.Record, claimed.Add(30*time.Second), claimed.Add(24*time.Hour))
	c.Advance(10 * time.Second)
	got, err := s.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	check("get in progress", got, claimed.Add(30*time.Second), claimed.Add(24*time.Hour))
	if err := s.Complete(ctx, "k", cl.Token, idem.Response{Status: 200}, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Minute)
	replay, err := s.Claim(ctx, "k", "fp", 30*time.Second, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	check("replay", replay.Record, time.Time{}, claimed.Add(10*time.Second+2*time.Hour))
}

// TestMemoryCopies: the store hands out copies, so a caller that edits a replayed response
// cannot change what the next retry gets.
func TestMemoryCopies(t *testing.T) {
	t.Parallel()
	s := idem.NewMemoryStore(idem.MemoryOptions{})
	ctx := t.Context()
	c, _ := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
	body := []byte("original")
	header := map[string][]string{"X": {"1"}}
	if err := s.Complete(ctx, "k", c.Token, idem.Response{Status: 200, Header: header, Body: body}, time.Minute); err != nil {
		t.Fatal(err)
	}
	body[0], header["X"][0] = 'X', "changed"
	r, _ := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
	r.Record.Response.Body[1] = 'X'
	r.Record.Response.Header["X"][0] = "changed again"
	again, _ := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
	if string(again.Record.Response.Body) != "original" || again.Record.Response.Header.Get("X") != "1" {
		t.Errorf("stored response changed to %q %v", again.Record.Response.Body, again.Record.Response.Header)
	}
}

func TestNewClaim(t *testing.T) {
	t.Parallel()
	rec := idem.Record{Key: "k", Fingerprint: "fp"}
	cases := []struct {
		outcome string
		want    idem.Outcome
		token   string
		retry   time.Duration
	}{
		{"claimed", idem.Claimed, "tok", 0},
		{"taken", idem.TakenOver, "tok", 0},
		{"replay", idem.Replay, "", 0},
		{"busy", idem.InProgress, "", 3 * time.Second},
		{"mismatch", idem.Mismatch, "", 0},
	}
	for _, tc := range cases {
		c, err := idem.NewClaim(tc.outcome, "tok", rec, 3*time.Second)
		if err != nil {
			t.Fatalf("idem.NewClaim(%q): %v", tc.outcome, err)
		}
		if c.Outcome != tc.want || c.Token != tc.token || c.RetryAfter != tc.retry || c.Record.Fingerprint != "fp" {
			t.Errorf("idem.NewClaim(%q) = %+v, want outcome %v, token %q, retry %v and the record", tc.outcome, c, tc.want, tc.token, tc.retry)
		}
	}
	if _, err := idem.NewClaim("held", "tok", rec, 0); err == nil || !strings.Contains(err.Error(), `"held"`) {
		t.Errorf("idem.NewClaim(held) = %v, want an error naming the unknown outcome", err)
	}
}

// TestMemoryResponseKeptExactly: a stored response comes back as it went in, nil header, nil
// value lists and nil body included, and a caller that changes what it stored or got back
// changes nothing in the store.
func TestMemoryResponseKeptExactly(t *testing.T) {
	t.Parallel()
	for _, resp := range []idem.Response{
		{},
		{Status: 204, Header: http.Header{}, Body: []byte{}},
		{Status: 201, Header: http.Header{"Content-Type": {"application/json"}, "X-Multi": {"a", "", "c"}, "X-Nil": nil, "X-Empty": {}},
			Body: []byte("{\"id\":1}\x00\xff")},
		{Status: 200, Header: http.Header{strings.Repeat("K", 300): {strings.Repeat("v", 200)}}, Body: make([]byte, 1<<16)},
	} {
		s := idem.NewMemoryStore(idem.MemoryOptions{})
		ctx := t.Context()
		c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		want := idem.Response{Status: resp.Status, Header: resp.Header.Clone(), Body: bytes.Clone(resp.Body)}
		if err := s.Complete(ctx, "k", c.Token, resp, time.Minute); err != nil {
			t.Fatal(err)
		}
		for k := range resp.Header {
			resp.Header[k] = append(resp.Header[k], "changed")
		}
		if len(resp.Body) > 0 {
			resp.Body[0] = '!'
		}
		for range 2 {
			r, err := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
			if err != nil || r.Outcome != idem.Replay {
				t.Fatalf("claim = %v, %v; want replay", r.Outcome, err)
			}
			if got := r.Record.Response; !reflect.DeepEqual(got, want) {
				t.Errorf("replayed %+v, want %+v", got, want)
			}
			for k := range r.Record.Response.Header {
				r.Record.Response.Header[k] = append(r.Record.Response.Header[k], "changed")
			}
			if len(r.Record.Response.Body) > 0 {
				r.Record.Response.Body[0] = '?'
			}
		}
		if g, err := s.Get(ctx, "k"); err != nil || !reflect.DeepEqual(g.Response, want) {
			t.Errorf("Get = %+v, %v; want %+v", g.Response, err, want)
		}
	}
}

// TestMemoryExpiryOrder: records with mixed leases and TTLs, completed, extended, released and
// taken over at random, expire exactly when their time comes.
func TestMemoryExpiryOrder(t *testing.T) {
	t.Parallel()
	c := &clock{now: time.Unix(1e9, 0)}
	s := idem.NewMemoryStore(idem.MemoryOptions{Now: c.Now})
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	expires := map[string]time.Time{}
	tokens := map[string]string{}
	for i := range 3000 {
		key := strconv.Itoa(rng.IntN(400))
		d := func() time.Duration { return time.Duration(1+rng.IntN(500)) * time.Millisecond }
		switch op := rng.IntN(4); {
		case op == 0 && tokens[key] != "":
			ttl := d()
			if err := s.Complete(ctx, key, tokens[key], idem.Response{Status: 200}, ttl); err == nil {
				expires[key], tokens[key] = c.now.Add(ttl), ""
			}
		case op == 1 && tokens[key] != "":
			if err := s.Release(ctx, key, tokens[key]); err == nil {
				delete(expires, key)
				tokens[key] = ""
			}
		case op == 2 && tokens[key] != "":
			lease := d()
			if err := s.Extend(ctx, key, tokens[key], lease); err == nil && expires[key].Before(c.now.Add(lease)) {
				expires[key] = c.now.Add(lease)
			}
		default:
			lease, ttl := d(), d()
			cl, err := s.Claim(ctx, key, "fp", lease, ttl)
			if err != nil {
				t.Fatal(err)
			}
			if cl.Held() {
				expires[key], tokens[key] = c.now.Add(max(lease, ttl)), cl.Token
			}
		}
		if i%7 == 0 {
			c.Advance(time.Duration(rng.IntN(40)) * time.Millisecond)
		}
		live := 0
		for k, at := range expires {
			if c.now.Before(at) {
				live++
			} else {
				delete(expires, k)
				tokens[k] = ""
			}
		}
		if n := s.Len(); n != live {
			t.Fatalf("step %d: Len = %d, want %d live records", i, n, live)
		}
	}
}

// TestCheckKeyText: a key is accepted exactly when it is non-empty UTF-8 without NUL of at most
// MaxKeyLen bytes, whatever its length and wherever a bad byte sits, the eight-byte steps of the
// ASCII check and the last, overlapping one included.
func TestCheckKeyText(t *testing.T) {
	t.Parallel()
	valid := func(s string) bool {
		return s != "" && len(s) <= idem.MaxKeyLen && utf8.ValidString(s) && !strings.ContainsRune(s, 0)
	}
	for n := range 40 {
		base := strings.Repeat("k", n)
		cases := []string{base, base + strings.Repeat("x", idem.MaxKeyLen-n), base + strings.Repeat("x", idem.MaxKeyLen+1-n)}
		for i := range n {
			for _, bad := range []string{"\x00", "\x80", "\xff", "é", "\x7f", "\x01", "€"} {
				cases = append(cases, base[:i]+bad+base[i+1:])
			}
		}
		for _, s := range cases {
			if err := idem.CheckKey(s); (err == nil) != valid(s) || err != nil && !errors.Is(err, idem.ErrInvalid) {
				t.Errorf("CheckKey(%q) = %v, want valid %v", s, err, valid(s))
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(128))
			if rng.IntN(30) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		if s := string(b); (idem.CheckKey(s) == nil) != valid(s) {
			t.Errorf("CheckKey(%q) = %v, want valid %v", s, idem.CheckKey(s), valid(s))
		}
	}
}

// TestNewToken: tokens are 26 characters of the base32 alphabet, every character takes all 32
// values (the last one too: 130 random bits), and none repeats.
func TestNewToken(t *testing.T) {
	t.Parallel()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	seen := map[string]bool{}
	var values [26]map[byte]bool
	for i := range values {
		values[i] = map[byte]bool{}
	}
	for range 5000 {
		tok := idem.NewToken()
		if len(tok) != 26 || strings.Trim(tok, alphabet) != "" || strings.Contains(tok, "|") {
			t.Fatalf("token %q is not 26 characters of the base32 alphabet", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q came twice", tok)
		}
		seen[tok] = true
		for i := range tok {
			values[i][tok[i]] = true
		}
	}
	for i, v := range values {
		if len(v) != 32 {
			t.Errorf("character %d of the tokens took %d values, want 32", i, len(v))
		}
	}
}
