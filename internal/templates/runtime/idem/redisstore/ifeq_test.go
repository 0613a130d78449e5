package redisstore_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// valkey connects to the server in IDEMKIT_TEST_VALKEY_URL, as client does, and fails the test
// unless its SET takes IFEQ.
func valkey(t testing.TB, edit ...func(*redis.Options)) *redis.Client {
	t.Helper()
	rdb := clientAt(t, testenv.ValkeyURL, edit...)
	if err := ifEqualProbe(t, rdb); err != nil {
		t.Fatalf("%s: the server's SET does not take IFEQ (%v): point it at Valkey 8.1 or later, or Redis 8.4 or later", testenv.ValkeyURL, err)
	}
	return rdb
}

// ifEqualProbe sends a SET ... IFEQ that writes nothing (its key does not exist): nil where the
// server has IFEQ, the server's error where it has not.
func ifEqualProbe(t testing.TB, rdb *redis.Client) error {
	t.Helper()
	err := rdb.Do(t.Context(), "set", testenv.Name(t)+":probe", "x", "ifeq", "y").Err()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// TestIfEqualConformance runs the suite on a server whose SET has IFEQ, where a Store completes
// without a script: the suite's completes are counted, and some must have been SET ... IFEQ.
func TestIfEqualConformance(t *testing.T) {
	rdb := valkey(t)
	counted := &ifEqualCounter{rdb: rdb}
	t.Cleanup(func() { // after the suite's parallel subtests
		if n := counted.written.Load(); n == 0 {
			t.Error("no complete of the suite was a SET ... IFEQ that wrote")
		}
	})
	storetest.Run(t, func(t testing.TB) idem.Store {
		_, prefix := newStore(t, rdb)
		return redisstore.New(counted, redisstore.Options{Prefix: prefix})
	}, storetest.WithOutage(func(t testing.TB, dial storetest.DialFunc) idem.Store {
		linked := valkey(t, func(o *redis.Options) { o.Dialer = dial })
		_, prefix := newStore(t, rdb)
		return redisstore.New(linked, redisstore.Options{Prefix: prefix})
	}))
}

// TestIfEqualComplete: where SET has IFEQ, a new key is completed by that one command, with the
// fence the script keeps: a holder whose lease was taken over writes nothing. What it cannot
// compare (a value Extend rewrote on the server) goes to the script.
func TestIfEqualComplete(t *testing.T) {
	admin := valkey(t)
	ctx := t.Context()
	// A client that may not run scripts: a complete that needed one would fail.
	noScripts := valkey(t, aclUser(t, admin, "-@scripting"))
	resp := idem.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"ch_1"}`)}
	big := idem.Response{Status: 201, Body: []byte(strings.Repeat("{}", 8<<10))}

	replays := func(t *testing.T, s *redisstore.Store, key string, want idem.Response) {
		t.Helper()
		r, err := s.Claim(ctx, key, "fp", time.Minute, time.Hour)
		if err != nil || r.Outcome != idem.Replay || !reflect.DeepEqual(r.Record.Response, want) {
			t.Fatalf("claim of completed %s = %v %+v, %v; want a replay of %+v", key, r.Outcome, r.Record.Response, err, want)
		}
		if left := time.Until(r.Record.Expires); left < 59*time.Minute || left > time.Hour {
			t.Errorf("completed record of %s expires in %v, want about the 1h TTL", key, left)
		}
	}
	t.Run("without a script", func(t *testing.T) {
		_, prefix := newStore(t, admin)
		s := redisstore.New(noScripts, redisstore.Options{Prefix: prefix})
		for key, r := range map[string]idem.Response{"small": resp, "large": big} {
			c, err := s.Claim(ctx, key, "fp", time.Minute, time.Hour)
			if err != nil || c.Outcome != idem.Claimed {
				t.Fatalf("claim of %s = %v, %v; want claimed", key, c.Outcome, err)
			}
			if err := s.Complete(ctx, key, c.Token, r, time.Hour); err != nil {
				t.Fatalf("complete of %s through a client that may not run scripts: %v", key, err)
			}
			replays(t, s, key, r)
		}
		if redisstore.IfEqualRefused(s) {
			t.Error("the store says the server refused IFEQ")
		}
		if keys, err := admin.Keys(ctx, prefix+"*:stage:*").Result(); err != nil || len(keys) != 0 {
			t.Errorf("stage keys written: %q, %v", keys, err)
		}
	})
	t.Run("lease lost", func(t *testing.T) {
		s, prefix := newStore(t, admin)
		lapsed, other, taken := takenOver(t, s, admin, prefix)
		if err := s.Complete(ctx, "k", lapsed.Token, big, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
			t.Fatalf("complete by the lapsed holder = %v, want ErrLeaseLost", err)
		}
		held, err := s.Get(ctx, "k")
		if err != nil || held.State != idem.StateInProgress || held.Fingerprint != "fp" {
			t.Fatalf("record after the lapsed holder's complete = %+v, %v; want the new holder's claim in progress", held, err)
		}
		if err := other.Complete(ctx, "k", taken.Token, resp, time.Hour); err != nil {
			t.Fatalf("complete by the new holder: %v", err)
		}
		replays(t, s, "k", resp)
	})
	t.Run("extended", func(t *testing.T) {
		_, prefix := newStore(t, admin)
		counted := &ifEqualCounter{rdb: admin}
		s := redisstore.New(counted, redisstore.Options{Prefix: prefix})
		c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Extend(ctx, "k", c.Token, 2*time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, "k", c.Token, resp, time.Hour); err != nil {
			t.Fatalf("complete after an extend: %v", err)
		}
		if n := counted.sent.Load(); n != 0 {
			t.Errorf("the complete after an extend sent %d SET ... IFEQ, want none: the extend rewrote the value it would compare", n)
		}
		replays(t, s, "k", resp)
		if err := s.Complete(ctx, "k", c.Token, resp, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
			t.Fatalf("second complete = %v, want ErrLeaseLost", err)
		}
	})
}

// TestIfEqualRefused: on a server whose SET has no IFEQ (Redis 7.0), the first complete finds
// out and completes through the script, and so do the rest, without asking again.
func TestIfEqualRefused(t *testing.T) {
	rdb := client(t)
	if ifEqualProbe(t, rdb) == nil {
		t.Skipf("the server at %s has SET ... IFEQ; TestIfEqualComplete covers it", testenv.RedisURL)
	}
	s, _ := newStore(t, rdb)
	if redisstore.IfEqualRefused(s) {
		t.Fatal("a new store already counts IFEQ as refused")
	}
	resp := idem.Response{Status: 200, Body: []byte("ok")}
	newKey(t, s, "first", resp)
	if !redisstore.IfEqualRefused(s) {
		t.Fatal("the store did not note that the server refused IFEQ")
	}
	newKey(t, s, "second", resp)
}

// TestIfEqualErrorReply: a SET ... IFEQ answered with an error wrote nothing, so the script
// completes instead. An error that says the server (or a proxy before it) does not know the
// option stops the store asking; any other, such as OOM, does not.
func TestIfEqualErrorReply(t *testing.T) {
	rdb := valkey(t)
	for _, tc := range []struct {
		reply   string
		refused bool
	}{
		{"ERR syntax error", true},
		{"ERR unknown option 'IFEQ'", true},
		{"ERR wrong number of arguments for 'set' command", true},
		{"OOM command not allowed when used memory > 'maxmemory'.", false},
		{"READONLY You can't write against a read only replica.", false},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			_, prefix := newStore(t, rdb)
			s := redisstore.New(refuseIfEqual{rdb, tc.reply}, redisstore.Options{Prefix: prefix})
			newKey(t, s, "k", idem.Response{Status: 200, Body: []byte("ok")})
			if got := redisstore.IfEqualRefused(s); got != tc.refused {
				t.Errorf("after %q: IfEqualRefused = %v, want %v", tc.reply, got, tc.refused)
			}
		})
	}
}

// refuseIfEqual is a client that answers every SET ... IFEQ with the error reply and sends the
// rest to rdb.
type refuseIfEqual struct {
	rdb   *redis.Client
	reply string
}

func (r refuseIfEqual) Process(ctx context.Context, cmd redis.Cmder) error {
	if args := cmd.Args(); len(args) > 4 && args[0] == "set" && args[3] == "ifeq" {
		cmd.SetErr(replyError(r.reply))
		return cmd.Err()
	}
	return r.rdb.Process(ctx, cmd)
}

// replyError is an error reply from the server, as go-redis reports one (redis.Error).
type replyError string

func (e replyError) Error() string { return string(e) }
func (replyError) RedisError()     {}

// ifEqualCounter is a client that counts the SET ... IFEQ it sends to rdb, and those that wrote.
type ifEqualCounter struct {
	rdb           *redis.Client
	sent, written atomic.Int64
}

func (c *ifEqualCounter) Process(ctx context.Context, cmd redis.Cmder) error {
	err := c.rdb.Process(ctx, cmd)
	if args := cmd.Args(); len(args) > 4 && args[0] == "set" && args[3] == "ifeq" {
		c.sent.Add(1)
		if err == nil {
			c.written.Add(1)
		}
	}
	return err
}

// aclUser makes an ACL user of the test's own on admin's server, allowed every command but what
// rules take away, and returns the client option that logs in as it.
func aclUser(t *testing.T, admin *redis.Client, rules ...any) func(*redis.Options) {
	t.Helper()
	user := testenv.Name(t)
	args := append([]any{"acl", "setuser", user, "reset", "on", ">pw", "~*", "&*", "+@all"}, rules...)
	if err := admin.Do(t.Context(), args...).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Do(context.Background(), "acl", "deluser", user) })
	return func(o *redis.Options) { o.Username, o.Password = user, "pw" }
}
