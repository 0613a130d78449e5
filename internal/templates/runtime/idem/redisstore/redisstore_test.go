package redisstore_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// client connects to the test Redis, or skips (fails under CI) when there is none; edit, if
// given, changes its options first.
func client(t testing.TB, edit ...func(*redis.Options)) *redis.Client {
	t.Helper()
	return clientAt(t, testenv.RedisURL, edit...)
}

// clientAt connects to the server in the variable name, as client does.
func clientAt(t testing.TB, name string, edit ...func(*redis.Options)) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(testenv.URL(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	opt.PoolSize = 100 // the suite races 64 claims at once
	for _, e := range edit {
		e(opt)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		testenv.Unreachable(t, name, err)
	}
	return rdb
}

// newStore returns a Store whose keys live under a prefix of the test's own, deleted afterwards.
func newStore(t testing.TB, rdb *redis.Client) (*redisstore.Store, string) {
	prefix := testenv.Name(t) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
	})
	return redisstore.New(rdb, redisstore.Options{Prefix: prefix}), prefix
}

// completes are the ways a store completes through its scripts that the suites run: the record
// passed to the script, and staging every completed record (the suites' responses are small,
// below the size from which it stages them). TestIfEqualConformance runs the way without a
// script, on a server whose SET has IFEQ.
var completes = map[string]func(*redisstore.Store) *redisstore.Store{
	"script": redisstore.ScriptsOnly,
	"staged": redisstore.StageAll,
}

// TestConformance runs the suite on the store each way it completes.
func TestConformance(t *testing.T) {
	rdb := client(t)
	for name, edit := range completes {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) idem.Store {
				s, _ := newStore(t, rdb)
				return edit(s)
			}, storetest.WithOutage(func(t testing.TB, dial storetest.DialFunc) idem.Store {
				// A client of its own, whose connections the suite cuts; the keys are deleted
				// through the shared one, which stays up.
				linked := client(t, func(o *redis.Options) { o.Dialer = dial })
				_, prefix := newStore(t, rdb)
				return edit(redisstore.New(linked, redisstore.Options{Prefix: prefix}))
			}))
		})
	}
}

// TestStagedComplete: a response too large to pass through Lua cheaply is staged under a key of
// its own and moved into place; the stage never outlives the complete, whether it wins or has
// lost its lease, and keys whose braces leave no stage key in their slot complete through the
// script. A client that cannot pipeline completes through the script too.
func TestStagedComplete(t *testing.T) {
	rdb := client(t)
	ctx := t.Context()
	big := idem.Response{Status: 201, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(strings.Repeat("{}", 8<<10))}
	small := idem.Response{Status: 200, Body: []byte("ok")}
	noStage := func(t *testing.T, prefix string) {
		t.Helper()
		if keys, err := rdb.Keys(ctx, prefix+"*:stage:*").Result(); err != nil || len(keys) != 0 {
			t.Errorf("stage keys left behind: %q, %v", keys, err)
		}
	}
	renames := func() int {
		t.Helper()
		info, err := rdb.Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		_, calls, _ := strings.Cut(info, "cmdstat_rename:calls=")
		n, _ := strconv.Atoi(calls[:strings.IndexByte(calls+",", ',')])
		return n
	}
	t.Run("large", func(t *testing.T) {
		s, prefix := newStore(t, rdb)
		redisstore.ScriptsOnly(s)
		before := renames()
		newKey(t, s, "k", big)
		if renames() == before {
			t.Error("a 16 KiB response was not staged: no RENAME ran")
		}
		noStage(t, prefix)
		if ttl, err := rdb.PTTL(ctx, prefix+"k").Result(); err != nil || ttl < 59*time.Minute || ttl > time.Hour {
			t.Errorf("the record's time to live = %v, %v; want about the 1h TTL", ttl, err)
		}
	})
	t.Run("lease lost", func(t *testing.T) {
		s, prefix := newStore(t, rdb)
		redisstore.ScriptsOnly(s)
		lapsed, other, taken := takenOver(t, s, rdb, prefix)
		if err := s.Complete(ctx, "k", lapsed.Token, big, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
			t.Fatalf("complete by the lapsed holder = %v, want ErrLeaseLost", err)
		}
		noStage(t, prefix)
		if err := other.Complete(ctx, "k", taken.Token, small, time.Hour); err != nil {
			t.Fatalf("complete by the new holder: %v", err)
		}
		r, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
		if err != nil || r.Outcome != idem.Replay || !reflect.DeepEqual(r.Record.Response, small) {
			t.Errorf("claim = %v %+v, %v; want a replay of the new holder's response", r.Outcome, r.Record.Response, err)
		}
	})
	t.Run("braces", func(t *testing.T) {
		s, prefix := newStore(t, rdb)
		redisstore.StageAll(s)
		for _, key := range []string{"{tenant}:k", "a{b", "a}b", "a{}b{c}", "{}"} {
			newKey(t, s, key, big)
		}
		noStage(t, prefix)
	})
	t.Run("no pipeline", func(t *testing.T) {
		_, prefix := newStore(t, rdb)
		s := redisstore.StageAll(redisstore.New(processOnly{rdb}, redisstore.Options{Prefix: prefix}))
		newKey(t, s, "k", big)
		noStage(t, prefix)
	})
}

// takenOver claims "k" through s with a lease that lapses, then claims it again through another
// Store on rdb, which takes it over: it returns the lapsed claim, that Store and its claim.
func takenOver(t *testing.T, s *redisstore.Store, rdb *redis.Client, prefix string) (lapsed idem.Claim, other *redisstore.Store, taken idem.Claim) {
	t.Helper()
	lapsed, err := s.Claim(t.Context(), "k", "fp", 20*time.Millisecond, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(40 * time.Millisecond)
	other = redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	taken, err = other.Claim(t.Context(), "k", "fp", time.Minute, time.Hour)
	if err != nil || taken.Outcome != idem.TakenOver {
		t.Fatalf("claim after the lease lapsed = %v, %v; want taken", taken.Outcome, err)
	}
	return lapsed, other, taken
}

// processOnly is a client that sends one command at a time.
type processOnly struct{ rdb *redis.Client }

func (p processOnly) Process(ctx context.Context, cmd redis.Cmder) error {
	return p.rdb.Process(ctx, cmd)
}

// TestServerSideExpiry: every state of a record carries a Redis expiry, so a record nobody comes
// back for still goes away, and the key lives under the prefix.
func TestServerSideExpiry(t *testing.T) {
	rdb := client(t)
	s, prefix := newStore(t, rdb)
	ctx := t.Context()
	pttl := func(state string) time.Duration {
		t.Helper()
		d, err := rdb.PTTL(ctx, prefix+"k").Result()
		if err != nil {
			t.Fatal(err)
		}
		if d <= 0 {
			t.Fatalf("%s record has no expiry (PTTL %v)", state, d)
		}
		return d
	}
	c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if d := pttl("in-progress"); d < 59*time.Minute {
		t.Errorf("in-progress record expires in %v, want the claim's TTL of 1h", d)
	}
	if err := s.Extend(ctx, "k", c.Token, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if d := pttl("extended"); d < 119*time.Minute {
		t.Errorf("record expires in %v after extending the lease to 2h", d)
	}
	if err := s.Complete(ctx, "k", c.Token, idem.Response{Status: 200}, 10*time.Minute); err != nil {
		t.Fatal(err)
	}
	if d := pttl("completed"); d > 10*time.Minute {
		t.Errorf("completed record expires in %v, want its result TTL of 10m", d)
	}
}

// TestDefaultPrefix: a Store without a prefix keeps its records under DefaultPrefix.
func TestDefaultPrefix(t *testing.T) {
	rdb := client(t)
	key := testenv.Name(t)
	t.Cleanup(func() { rdb.Del(context.Background(), redisstore.DefaultPrefix+key) })
	s := redisstore.New(rdb, redisstore.Options{})
	if _, err := s.Claim(t.Context(), key, "fp", time.Minute, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := rdb.Exists(t.Context(), redisstore.DefaultPrefix+key).Result(); err != nil || n != 1 {
		t.Errorf("EXISTS %s%s = %d, %v; want 1", redisstore.DefaultPrefix, key, n, err)
	}
}

func BenchmarkStore(b *testing.B) {
	rdb := client(b)
	storetest.Benchmark(b, func(t testing.TB) idem.Store {
		s, _ := newStore(t, rdb)
		return s
	})
}

// TestForeignKeys: a key holding something this store did not write — a hash left by an older
// redisstore, another program's string — fails closed, and the error names the key and the way
// out, instead of being read as a record or overwritten.
func TestForeignKeys(t *testing.T) {
	rdb := client(t)
	s, prefix := newStore(t, rdb)
	ctx := t.Context()
	if err := rdb.HSet(ctx, prefix+"hash", "st", "c", "fp", "fp").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, prefix+"string", "someone else's", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, want   string
		unavailable bool
	}{
		{"hash", `key "` + prefix + `hash" is not a string`, true},
		{"string", "a Prefix no other program writes under", false},
	} {
		_, err := s.Claim(ctx, tc.key, "fp", time.Minute, time.Minute)
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.Is(err, idem.ErrStoreUnavailable) != tc.unavailable {
			t.Errorf("claim of the %s key = %v; want an error saying %q (unavailable: %v)", tc.key, err, tc.want, tc.unavailable)
		}
		if _, err := idem.Do(ctx, s, tc.key, "fp", func(context.Context) (idem.Response, error) {
			t.Errorf("the work ran over the %s key", tc.key)
			return idem.Response{}, nil
		}); err == nil {
			t.Errorf("Do over the %s key succeeded", tc.key)
		}
	}
	if v, err := rdb.Get(ctx, prefix+"string").Result(); err != nil || v != "someone else's" {
		t.Errorf("the foreign string is now %q, %v", v, err)
	}
}

// TestReplicasUnacknowledged: with Options.Replicas a write no replica acknowledged fails closed —
// the test Redis has none — and the claim is taken back, so the work does not run and a retry
// finds the key free.
func TestReplicasUnacknowledged(t *testing.T) {
	rdb := client(t)
	_, prefix := newStore(t, rdb)
	s := redisstore.New(rdb, redisstore.Options{Prefix: prefix, Replicas: 1, ReplicaTimeout: 20 * time.Millisecond})
	ctx := t.Context()
	_, err := s.Claim(ctx, "k", "fp", time.Minute, time.Minute)
	if !errors.Is(err, idem.ErrStoreUnavailable) || !strings.Contains(err.Error(), "0 of the 1 replicas") {
		t.Fatalf("claim without a replica = %v, want ErrStoreUnavailable saying no replica acknowledged it", err)
	}
	if n, err := rdb.Exists(ctx, prefix+"k").Result(); err != nil || n != 0 {
		t.Errorf("the unacknowledged claim is still there (EXISTS = %d, %v)", n, err)
	}
	if _, err := idem.Do(ctx, s, "k", "fp", func(context.Context) (idem.Response, error) {
		t.Error("the work ran on a claim no replica acknowledged")
		return idem.Response{}, nil
	}); !errors.Is(err, idem.ErrStoreUnavailable) {
		t.Errorf("Do = %v, want ErrStoreUnavailable", err)
	}
	// Reads need no replica: a record written without the option replays through it.
	plain := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	c, err := plain.Claim(ctx, "done", "fp", time.Minute, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := plain.Complete(ctx, "done", c.Token, idem.Response{Status: 200}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Claim(ctx, "done", "fp", time.Minute, time.Minute); err != nil || r.Outcome != idem.Replay {
		t.Errorf("replay through a store with Replicas = %v, %v; want a replay", r.Outcome, err)
	}
}

// TestCompleteThroughAnotherStore: a Store completes claims it did not make (another instance, so
// it does not know their fingerprints and reads them back from the record) with the same
// fencing and the same record as the Store that made them.
func TestCompleteThroughAnotherStore(t *testing.T) {
	rdb := client(t)
	a, prefix := newStore(t, rdb)
	b := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	ctx := t.Context()
	want := idem.Response{Status: 201, Header: http.Header{"X-A": {"1", "|"}}, Body: []byte("body|1|")}
	c, err := a.Claim(ctx, "k", "f|p", time.Minute, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Extend(ctx, "k", c.Token, 2*time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Complete(ctx, "k", "not-"+c.Token, want, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("Complete with another token = %v, want ErrLeaseLost", err)
	}
	if err := b.Complete(ctx, "k", c.Token, want, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := a.Complete(ctx, "k", c.Token, want, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
		t.Errorf("second Complete through the claiming Store = %v, want ErrLeaseLost", err)
	}
	for name, s := range map[string]*redisstore.Store{"claiming": a, "other": b} {
		r, err := s.Claim(ctx, "k", "f|p", time.Minute, time.Hour)
		if err != nil || r.Outcome != idem.Replay || r.Record.Fingerprint != "f|p" || !reflect.DeepEqual(r.Record.Response, want) {
			t.Errorf("%s store: claim = %v %+v, %v; want a replay of %+v", name, r.Outcome, r.Record, err, want)
		}
		if left := time.Until(r.Record.Expires); left < 59*time.Minute || left > time.Hour {
			t.Errorf("%s store: completed record expires in %v, want about 1h", name, left)
		}
		if m, err := s.Claim(ctx, "k", "other", time.Minute, time.Hour); err != nil || m.Outcome != idem.Mismatch || m.Record.Fingerprint != "f|p" {
			t.Errorf("%s store: claim with another fingerprint = %v (stored %q), %v; want a mismatch naming f|p", name, m.Outcome, m.Record.Fingerprint, err)
		}
	}
}

// newKey claims key, completes it with resp and checks that a second claim replays it.
func newKey(t *testing.T, s *redisstore.Store, key string, resp idem.Response) {
	t.Helper()
	ctx := t.Context()
	c, err := s.Claim(ctx, key, "fp", time.Minute, time.Hour)
	if err != nil || c.Outcome != idem.Claimed {
		t.Fatalf("claim of %s = %v, %v; want claimed", key, c.Outcome, err)
	}
	if err := s.Complete(ctx, key, c.Token, resp, time.Hour); err != nil {
		t.Fatalf("complete of %s: %v", key, err)
	}
	if err := s.Complete(ctx, key, c.Token, resp, time.Hour); !errors.Is(err, idem.ErrLeaseLost) {
		t.Fatalf("second complete of %s = %v, want ErrLeaseLost", key, err)
	}
	r, err := s.Claim(ctx, key, "fp", time.Minute, time.Hour)
	if err != nil || r.Outcome != idem.Replay || !reflect.DeepEqual(r.Record.Response, resp) {
		t.Fatalf("claim of completed %s = %v %+v, %v; want a replay of %+v", key, r.Outcome, r.Record.Response, err, resp)
	}
}

// TestFunctionReloaded: the complete script is a Redis function; when the server has lost it (a
// restart without persistence, a FUNCTION FLUSH, a new master), the store loads it again.
func TestFunctionReloaded(t *testing.T) {
	rdb := client(t)
	s, _ := newStore(t, rdb)
	redisstore.ScriptsOnly(s)
	ctx := t.Context()
	resp := idem.Response{Status: 201, Body: []byte("created")}
	newKey(t, s, "before", resp)
	libs := func() []string {
		t.Helper()
		list, err := rdb.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: "redisstore_*"}).Result()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range list {
			names = append(names, l.Name)
		}
		return names
	}
	loaded := libs()
	if len(loaded) == 0 {
		t.Fatal("no redisstore_* function library after a complete")
	}
	for _, name := range loaded {
		if err := rdb.FunctionDelete(ctx, name).Err(); err != nil && !strings.Contains(err.Error(), "not exist") {
			t.Fatal(err)
		}
	}
	newKey(t, s, "after", resp)
	if len(libs()) == 0 {
		t.Error("the store completed without loading its function library again")
	}
	// The same for the staged complete, whose record is written before the function is found
	// missing, and again with it.
	redisstore.StageAll(s)
	newKey(t, s, "staged", resp)
	for _, name := range libs() {
		if err := rdb.FunctionDelete(ctx, name).Err(); err != nil && !strings.Contains(err.Error(), "not exist") {
			t.Fatal(err)
		}
	}
	newKey(t, s, "staged after", resp)
	if len(libs()) == 0 {
		t.Error("the store completed without loading its function library again")
	}
}

// TestFunctionsRefused: a client the server does not let use functions (here an ACL without
// FCALL and FUNCTION) still completes, through EVALSHA.
func TestFunctionsRefused(t *testing.T) {
	admin := client(t)
	rdb := client(t, aclUser(t, admin, "-fcall", "-function"))
	s, _ := newStore(t, rdb)
	redisstore.ScriptsOnly(s)
	newKey(t, s, "k1", idem.Response{Status: 200})
	newKey(t, s, "k2", idem.Response{Status: 200, Body: []byte("x")})
	redisstore.StageAll(s)
	newKey(t, s, "k3", idem.Response{Status: 200, Body: []byte("staged")})
}
