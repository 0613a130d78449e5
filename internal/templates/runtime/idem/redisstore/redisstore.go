// Package redisstore keeps idempotency records in Redis (7.0 or later) or Redis Cluster.
//
// A record is one string key, and the two hot paths cost what hand-written Redis code would: a
// claim is one plain SET ... NX GET PX, which writes the new in-progress record when the key is
// free and otherwise answers with the stored one — so a replay is that same single command, and
// the response comes back in its reply. A complete is one plain SET ... IFEQ where the server
// has it (Valkey 8.1, Redis 8.4): it writes the completed record only while the key holds the
// in-progress value the claim wrote, which is the fence. Elsewhere (Redis 7.x), and for the
// writes that must compare a lease token first (release, extend) and the rare claim that finds a
// record in progress (to tell a live lease from a lapsed one and take it over), a Lua script
// runs, each a few commands on the one key. A complete through a script whose response is large
// writes the record under a key of its own first, with a plain SET in the same round trip, and
// its script moves it into place: Lua costs time for every byte it is given. Every operation
// stays in one hash slot on Redis Cluster: the record's key, and that staging key, which carries
// the record key's hash tag.
//
// Leases are measured on the Redis server's clock, never the callers': an in-progress record
// keeps its lease as an offset from the key's own expiry, so application servers with skewed
// clocks agree on when it runs out. Every record carries a server-side expiry, so nothing
// outlives its TTL even if no client comes back.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DefaultPrefix is put before every key when Options.Prefix is empty.
const DefaultPrefix = "idem:"

// Options configures a Store.
type Options struct {
	// Prefix is put before every key, so idempotency records can share a Redis with other data.
	// Default DefaultPrefix. On Redis Cluster it must not hold a hash tag ({...}): that would put
	// every record in one slot, on one master.
	Prefix string
	// Replicas, when above zero, makes every write wait (WAIT, in the same round trip) until that
	// many replicas have acknowledged it. Redis replicates asynchronously: a master that fails
	// right after acknowledging a claim can lose it in the failover, and the key can then run
	// twice. A write that fewer replicas acknowledged within ReplicaTimeout fails with
	// ErrStoreUnavailable (a claim is released again, best effort), so the work does not run on a
	// claim a failover could lose. It costs the replication delay on every write; see
	// docs/redis.md for figures. It needs a *redis.Client or *redis.ClusterClient.
	Replicas int
	// ReplicaTimeout bounds the wait for Replicas. Default DefaultReplicaTimeout.
	ReplicaTimeout time.Duration
}

// DefaultReplicaTimeout is how long a write waits for Options.Replicas by default.
const DefaultReplicaTimeout = 200 * time.Millisecond

// Client is what the store needs of a go-redis client: *redis.Client, *redis.ClusterClient,
// *redis.Ring, redis.UniversalClient and a failover client all have it.
type Client interface {
	Process(ctx context.Context, cmd redis.Cmder) error
}

// Store is an idem.Store on Redis.
type Store struct {
	rdb      Client
	prefix   string
	replicas int
	timeout  time.Duration
	held     heldClaims
	// noFunctions: the server refused to load a function (an ACL without FUNCTION, a server
	// without functions), so scripts run through EVALSHA alone.
	noFunctions atomic.Bool
	// noIfEqual: the server refused SET ... IFEQ (Redis before 8.4, Valkey before 8.1), so
	// completes run a script (see setIfEqual).
	noIfEqual atomic.Bool
	// staged: rdb pipelines (pipelines makes them), so a complete whose response body is longer
	// than stageAbove bytes stages its record under a key of its own and has a script move it into place (see
	// completeStagedScript).
	staged     bool
	stageAbove int
	pipelines  sync.Pool
}

var _ idem.Store = (*Store)(nil)

// New returns a Store over rdb.
func New(rdb Client, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.ReplicaTimeout <= 0 {
		opts.ReplicaTimeout = DefaultReplicaTimeout
	}
	s := &Store{rdb: rdb, prefix: opts.Prefix, replicas: opts.Replicas, timeout: opts.ReplicaTimeout, stageAbove: stageAbove}
	if p, ok := rdb.(pipeliner); ok {
		s.staged = true
		s.pipelines.New = func() any { return p.Pipeline() }
	}
	return s
}

// process sends cmd, a command on key; its result is cmd's. pre, when not nil, is a command on a
// key in the same hash slot that goes first, in the same round trip (a pipeline). With
// Options.Replicas it waits for the replicas on the same connection, in the same round trip, and
// returns an error when fewer acknowledged the connection's writes in time; the caller decides
// whether cmd wrote.
func (s *Store) process(ctx context.Context, key string, pre, cmd redis.Cmder) (unreplicated error) {
	if s.replicas <= 0 && pre == nil {
		_ = s.rdb.Process(ctx, cmd)
		return nil
	}
	if s.replicas <= 0 {
		pipe := s.pipelines.Get().(redis.Pipeliner)
		_ = pipe.BatchProcess(ctx, pre, cmd)
		_, _ = pipe.Exec(ctx)
		s.pipelines.Put(pipe)
		return nil
	}
	var node any = s.rdb
	if c, ok := s.rdb.(interface {
		MasterForKey(context.Context, string) (*redis.Client, error)
	}); ok {
		m, err := c.MasterForKey(ctx, key)
		if err != nil {
			cmd.SetErr(err)
			return nil
		}
		node = m
	}
	p, ok := node.(pipeliner)
	if !ok {
		cmd.SetErr(fmt.Errorf("redisstore: Options.Replicas needs a *redis.Client or *redis.ClusterClient, not %T", s.rdb))
		return nil
	}
	pipe := p.Pipeline()
	if pre != nil {
		_ = pipe.Process(ctx, pre)
	}
	_ = pipe.Process(ctx, cmd)
	wait := redis.NewIntCmd(ctx, "wait", s.replicas, s.timeout.Milliseconds())
	_ = pipe.Process(ctx, wait)
	_, _ = pipe.Exec(ctx)
	if err := cmd.Err(); err != nil && !errors.Is(err, redis.Nil) {
		// The pipeline went to the master the cluster client knew; after a failover or a slot
		// move that is stale, and only the cluster client can learn the new one.
		if c, ok := s.rdb.(interface{ ReloadState(context.Context) }); ok {
			c.ReloadState(ctx)
		}
	}
	if err := wait.Err(); err != nil {
		return fmt.Errorf("%w: WAIT: %w", errUnreplicated, err)
	}
	if n := wait.Val(); n < int64(s.replicas) {
		return fmt.Errorf("%w: written on the master, but %d of the %d replicas of Options.Replicas acknowledged it within %v: a failover could lose it", errUnreplicated, n, s.replicas, s.timeout)
	}
	return nil
}

// pipeliner is a client that sends several commands in one round trip.
type pipeliner interface{ Pipeline() redis.Pipeliner }

// errUnreplicated: a write the replicas did not acknowledge in time.
var errUnreplicated = errors.New("not replicated")

// Claim implements idem.Store.
//
//idemkit:claim
func (s *Store) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	if err := idem.CheckClaim(key, fingerprint, lease, ttl); err != nil {
		return idem.Claim{}, err
	}
	token := idem.NewToken()
	leaseMS, px := lease.Milliseconds(), max(lease, ttl).Milliseconds()
	value := inProgress(token, fingerprint, leaseMS, px)
	k := s.prefix + key
	now := time.Now()
	old, free, unreplicated, err := s.claimSet(ctx, k, value, px)
	if err != nil {
		return idem.Claim{}, s.unavailable(ctx, "claim", key, err)
	}
	if free && unreplicated != nil {
		s.releaseUnreplicated(key, token)
		return idem.Claim{}, s.unavailable(ctx, "claim", key, unreplicated)
	}
	if free {
		expires := now.Add(time.Duration(px) * time.Millisecond)
		s.held.add(token, fingerprint, value, expires)
		return idem.Claim{Outcome: idem.Claimed, Token: token, Record: idem.Record{
			Key:          key,
			Fingerprint:  fingerprint,
			State:        idem.StateInProgress,
			LeaseExpires: now.Add(lease),
			Expires:      expires,
		}}, nil
	}
	if len(old) > 0 && old[0] == 'C' {
		c, err := claimDone(key, fingerprint, string(old), old)
		if err != nil {
			return idem.Claim{}, fmt.Errorf("redisstore: claim %q: %w", key, err)
		}
		return c, nil
	}
	// In progress: whether its lease is live depends on the server's clock, so a script decides,
	// and takes the key over when the lease has lapsed.
	held, unreplicated := run(ctx, s, claimHeldScript, redis.NewCmd, []any{nil, nil, "1", k, value, fingerprint, px}, nil)
	reply, err := held.Result()
	if err != nil {
		return idem.Claim{}, s.unavailable(ctx, "claim", key, err)
	}
	c, err := decodeClaimHeld(key, fingerprint, token, leaseMS, px, reply, time.Now())
	if err != nil {
		return idem.Claim{}, fmt.Errorf("redisstore: claim %q: %w", key, err)
	}
	if c.Held() && unreplicated != nil {
		s.releaseUnreplicated(key, token)
		return idem.Claim{}, s.unavailable(ctx, "claim", key, unreplicated)
	}
	if c.Held() {
		s.held.add(token, fingerprint, value, c.Record.Expires)
	}
	return c, nil
}

// claimSet sends the claim, SET k value PX px NX GET: free when it wrote value to a free key,
// otherwise old is the value it found. A free key answers nil, which go-redis turns into
// redis.Nil and runs through its retry and connection-health checks (a score of errors.As calls,
// each allocating) before returning it; so the claim reads the reply raw, nil or a string alike,
// and parses it here. An error reply (a redirection, a server error) comes back raw too: the
// command wrote nothing, so it is sent again as an ordinary command, for go-redis to follow the
// redirection or turn the reply into an error.
func (s *Store) claimSet(ctx context.Context, k, value string, px int64) (old []byte, free bool, unreplicated, err error) {
	a := claimArgs.Get().(*setArgs)
	a.k, a.value, a.px = k, value, px
	argv := append(a.argv[:0], "set", &a.k, &a.value, "px", &a.px, "nx", "get")
	raw := redis.NewRawCmd(ctx, argv...)
	unreplicated = s.process(ctx, k, nil, raw)
	old, free, ok := bulkReply(raw.Val())
	err = raw.Err()
	if err == nil && !ok {
		cmd := redis.NewStringCmd(ctx, argv...)
		unreplicated = s.process(ctx, k, nil, cmd)
		var v string
		v, err = cmd.Result()
		old, free = []byte(v), errors.Is(err, redis.Nil)
		if free {
			old, err = nil, nil
		}
	}
	a.k, a.value = "", ""
	claimArgs.Put(a)
	if err != nil {
		return nil, false, nil, err
	}
	return old, free, unreplicated, nil
}

// setArgs holds a claim's arguments. go-redis boxes each argument of a command in an interface,
// an allocation apiece for a string or a number, but none for a pointer: so the arguments point
// into a recycled setArgs. go-redis is done with them when the round trip returns.
type setArgs struct {
	k, value string
	px       int64
	argv     [7]any
}

var claimArgs = sync.Pool{New: func() any { return new(setArgs) }}

// bulkReply reads a raw RESP reply that is a string or nil (RESP2 or RESP3); ok is false for
// anything else. v shares raw's memory.
func bulkReply(raw []byte) (v []byte, null, ok bool) {
	if len(raw) < 3 || raw[len(raw)-2] != '\r' || raw[len(raw)-1] != '\n' {
		return nil, false, false
	}
	switch raw[0] {
	case '_':
		if len(raw) == 3 {
			return nil, true, true
		}
	case '$':
		if string(raw) == "$-1\r\n" {
			return nil, true, true
		}
		n, i := 0, 1
		for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9' && i < 12; i++ {
			n = n*10 + int(raw[i]-'0')
		}
		if i == 1 || i+2+n+2 != len(raw) || raw[i] != '\r' || raw[i+1] != '\n' {
			return nil, false, false
		}
		return raw[i+2 : i+2+n : i+2+n], false, true
	}
	return nil, false, false
}

// claimDone answers a claim that found a completed record v; raw, when not nil, holds v's bytes
// and is the caller's alone to give away (see decodeDone).
func claimDone(key, fingerprint, v string, raw []byte) (idem.Claim, error) {
	rec, err := decodeDone(key, v, fingerprint, raw)
	if err != nil {
		return idem.Claim{}, err
	}
	if rec.Fingerprint != fingerprint {
		return idem.Claim{Outcome: idem.Mismatch, Record: rec}, nil
	}
	return idem.Claim{Outcome: idem.Replay, Record: rec}, nil
}

// claimHeldScript runs when a claim finds a record in progress. KEYS[1]; ARGV the caller's
// in-progress value, its fingerprint, the key's time to live in ms. Replies {'claimed'} when it
// wrote the caller's value to a free key, {'taken', lapsed holder's value} when it took the key
// over, {'done', value} when the record is not in progress (it has completed since), or
// {'mismatch' | 'busy', value, pttl}.
var claimHeldScript = newScript(`
local v = redis.call('GET', KEYS[1])
if v and string.byte(v) ~= 80 then return {'done', v} end
if v then
  local t = redis.call('PTTL', KEYS[1])
  local a = string.find(v, '|', 2, true)
  local b = string.find(v, '|', a + 1, true)
  if string.sub(v, b + 1) ~= ARGV[2] then return {'mismatch', v, t} end
  if t > tonumber(string.sub(v, a + 1, b - 1)) then return {'busy', v, t} end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
if v then return {'taken', v} end
return {'claimed'}
`)

func decodeClaimHeld(key, fingerprint, token string, lease, px int64, reply any, now time.Time) (idem.Claim, error) {
	r, _ := reply.([]any)
	if len(r) == 0 {
		return idem.Claim{}, fmt.Errorf("unexpected reply %v", reply)
	}
	outcome, _ := r[0].(string)
	switch outcome {
	case "claimed", "taken":
		c, err := idem.NewClaim(outcome, token, idem.Record{
			Key:          key,
			Fingerprint:  fingerprint,
			State:        idem.StateInProgress,
			LeaseExpires: now.Add(time.Duration(lease) * time.Millisecond),
			Expires:      now.Add(time.Duration(px) * time.Millisecond),
		}, 0)
		if outcome == "taken" && len(r) == 2 {
			v, _ := r[1].(string)
			c.Previous = holder(v)
		}
		return c, err
	case "done":
		v, _ := r[1].(string)
		return claimDone(key, fingerprint, v, nil)
	case "mismatch", "busy":
		if len(r) != 3 {
			return idem.Claim{}, fmt.Errorf("unexpected reply %v", reply)
		}
		v, _ := r[1].(string)
		pttl, _ := r[2].(int64)
		rec, left, err := decodeHeld(key, v, pttl, now)
		if err != nil {
			return idem.Claim{}, err
		}
		return idem.NewClaim(outcome, token, rec, left)
	}
	return idem.Claim{}, fmt.Errorf("unexpected reply %v", reply)
}

// completeScript: KEYS[1]; ARGV the holder's prefix "P<token>|", the completed record, ttl ms.
// Replies 1, or 0 when the token does not hold the key. It is the one script on a new key's path,
// so it does the least Lua can: a compare and one SET. Every byte of every string Lua makes is
// hashed, so the record, the bulk of which is the response, goes from ARGV to SET untouched. It
// runs as a Redis function (see newFunction).
var completeScript = newFunction("complete", `
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`)

// stageAbove is the length of a response body above which Complete stages the completed record
// (see completeStagedScript) rather than pass it to completeScript. Lua costs about 1.7 ns a byte
// of the record; staging costs a SET, and the client a pipeline, whatever the size. Measured with
// BenchmarkVsBaseline: with 1 KiB responses the two are even (0.86 and 0.82 of the baseline on
// one worker, 0.78 and 0.80 on sixteen: staged first), with 16 KiB ones staging wins (0.87 and
// 0.77 on one, 0.82 and 0.57 on sixteen).
const stageAbove = 1536

// completeStagedScript: KEYS[1] and the key the record is staged under (stageKey); ARGV the
// holder's prefix. Run after a SET has written the completed record to KEYS[2] with its time to
// live, it RENAMEs it over KEYS[1], or deletes it, and replies as completeScript. The record never
// passes through Lua, which hashes every byte of every string it makes (about 1.7 ns a byte on
// Redis 7.0): so the script costs the same for any size of response.
var completeStagedScript = newFunction("complete_staged", `
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then
  redis.call('DEL', KEYS[2])
  return 0
end
redis.call('RENAME', KEYS[2], KEYS[1])
return 1
`)

// stageKey sets *stage to a key for token's record of k, a key under prefix, that is in k's hash
// slot (on Redis Cluster and a Ring, a script's keys must be), and says whether there is one. k's
// hash tag, if it has one, is the stage's; otherwise the stage is tagged with the whole of k,
// which works unless k holds a brace. The stage is under prefix too, for ACLs that allow it alone.
func stageKey(stage *string, prefix, k string, token []byte) bool {
	if i := strings.IndexByte(k, '{'); i >= 0 {
		if j := strings.IndexByte(k[i+1:], '}'); j > 0 {
			*stage = k + ":stage:" + string(token)
			return true
		}
		return false
	}
	if strings.IndexByte(k, '}') >= 0 {
		return false
	}
	*stage = prefix + "{" + k + "}:stage:" + string(token)
	return true
}

// completeForeignScript completes for a token this Store does not remember (see heldClaims), so
// the fingerprint comes from the record. KEYS[1]; ARGV the holder's prefix, the completed
// record's head "C<expiry>|", the response as completion encodes it, ttl ms. Replies as
// completeScript. The response still goes from ARGV to APPEND untouched.
var completeForeignScript = newScript(`
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
local fp = string.sub(v, string.find(v, '|', #ARGV[1] + 1, true) + 1)
redis.call('SET', KEYS[1], ARGV[2] .. #fp .. '|' .. fp, 'PX', ARGV[4])
redis.call('APPEND', KEYS[1], ARGV[3])
return 1
`)

// releaseScript: KEYS[1]; ARGV the holder's prefix. Replies 1, or 0 when the token does not
// hold the key.
var releaseScript = newScript(`
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// extendScript: KEYS[1]; ARGV the holder's prefix, lease ms. Replies 1, or 0 when the token does
// not hold the key. The key lives at least as long as the renewed lease.
var extendScript = newScript(`
local v = redis.call('GET', KEYS[1])
if not v or string.sub(v, 1, #ARGV[1]) ~= ARGV[1] then return 0 end
local lease = tonumber(ARGV[2])
local px = math.max(redis.call('PTTL', KEYS[1]), lease)
local rest = string.sub(v, (string.find(v, '|', #ARGV[1] + 1, true)))
redis.call('SET', KEYS[1], ARGV[1] .. string.format('%d', px - lease) .. rest, 'PX', px)
return 1
`)

// getScript: KEYS[1]; ARGV unused. Replies {value, pttl}, or nil when there is no record.
var getScript = newScript(`
local v = redis.call('GET', KEYS[1])
if not v then return false end
return {v, redis.call('PTTL', KEYS[1])}
`)

// heldClaims remembers, by token, the fingerprint of each claim this Store made until Complete or
// Release takes it back. Knowing it, Complete sends the completed record whole, and its script
// is a compare and one SET; a token it does not know (claimed through another Store, or while
// full) takes completeForeignScript, which reads the fingerprint back from the record. A claim
// nobody completes or releases is dropped once its record has expired, when room is needed.
type heldClaims struct {
	mu sync.Mutex
	m  map[string]heldClaim
	// sweep is when the earliest record that the last sweep kept expires: no sweep before it
	// could make room, so a full map of live claims costs a claim nothing but the check.
	sweep time.Time
}

type heldClaim struct {
	fingerprint string
	// value is the in-progress value the claim wrote, which the key still holds unless the
	// lease lapsed and another holder took it over; "" once an Extend has rewritten it.
	value   string
	expires time.Time // the record's, after which the token can no longer write
}

// maxHeldClaims bounds heldClaims: far above the claims one process holds at once.
const maxHeldClaims = 1 << 14

func (h *heldClaims) add(token, fingerprint, value string, expires time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.m) >= maxHeldClaims {
		now := time.Now()
		if now.Before(h.sweep) {
			return
		}
		h.sweep = time.Time{}
		for token, c := range h.m {
			switch {
			case now.After(c.expires):
				delete(h.m, token)
			case h.sweep.IsZero() || c.expires.Before(h.sweep):
				h.sweep = c.expires
			}
		}
		if len(h.m) >= maxHeldClaims {
			return
		}
	}
	if h.m == nil {
		h.m = make(map[string]heldClaim)
	}
	h.m[token] = heldClaim{fingerprint, value, expires}
}

// take forgets token, and says what was remembered of its claim: the fingerprint, and the
// in-progress value ("" when not known).
func (h *heldClaims) take(token string) (fingerprint, value string, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.m[token]
	delete(h.m, token)
	return c.fingerprint, c.value, ok
}

// extended notes that token's in-progress value has been rewritten (by Extend, on the server's
// clock), so that it is no longer known.
func (h *heldClaims) extended(token string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.m[token]; ok {
		c.value = ""
		h.m[token] = c
	}
}

// Complete implements idem.Store.
//
//idemkit:complete
func (s *Store) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	if err := idem.CheckDuration("ttl", ttl); err != nil {
		return err
	}
	// One buffer holds the arguments that vary: the holder's prefix, then the completed record
	// (its expiry on this client's clock, the fingerprint when this Store remembers it, the
	// response).
	fp, held, known := s.held.take(token)
	c := completions.Get().(*completeArgs)
	c.k, c.ttl = s.prefix+key, ttl.Milliseconds()
	b := append(c.buf[:0], 'P')
	b = append(b, token...)
	b = append(b, '|')
	pre := len(b)
	b = append(b, 'C')
	b = strconv.AppendInt(b, time.Now().Add(ttl).UnixMilli(), 10)
	b = append(b, '|')
	head := len(b)
	if known {
		b = strconv.AppendInt(b, int64(len(fp)), 10)
		b = append(b, '|')
		b = append(b, fp...)
		b = completion(b, resp)
		c.args[0], c.args[1] = b[:pre], b[pre:]
	}
	var err error
	switch {
	case known && held != "" && s.setIfEqual(ctx, c, key, held, &err):
		// SET ... IFEQ wrote the record, or could not be sent: err says which.
	case known && s.staged && len(resp.Body) > s.stageAbove && stageKey(&c.stage, s.prefix, c.k, b[1:pre-1]):
		set := append(c.set[:0], "set", &c.stage, &c.args[1], "px", &c.ttl)
		err = s.fenced(ctx, "complete", completeStagedScript, key, append(c.argv[:0], nil, nil, "2", &c.k, &c.stage, &c.args[0]), set)
	case known:
		err = s.fenced(ctx, "complete", completeScript, key, append(c.argv[:0], nil, nil, "1", &c.k, &c.args[0], &c.args[1], &c.ttl), nil)
	default:
		b = completion(b, resp)
		c.args[0], c.args[1], c.args[2] = b[:pre], b[pre:head], b[head:]
		err = s.fenced(ctx, "complete", completeForeignScript, key, append(c.argv[:0], nil, nil, "1", &c.k, &c.args[0], &c.args[1], &c.args[2], &c.ttl), nil)
	}
	c.buf, c.k, c.stage, c.held, c.args = b, "", "", "", [3]bytesArg{}
	if cap(b) <= 64<<10 { // keep the pool from holding on to the odd huge response
		completions.Put(c)
	}
	return err
}

// setIfEqual completes with one plain command where the server has one that compares: SET k
// record IFEQ held PX ttl (Valkey 8.1, Redis 8.4), which writes the completed record only while
// the key still holds the in-progress value this Store's claim wrote, so a holder whose lease
// lapsed and was taken over writes nothing — the fence completeScript keeps, without Lua, whose
// cost on the server is most of a new key's (see docs/redis.md). It reports whether the command
// decided the complete, setting *err: nil when it wrote, the failure when the round trip failed.
// When the server wrote nothing, or answered with an error, the script decides, so that a lost
// lease is told apart from a value rewritten some other way; and a server without IFEQ (a syntax
// error) is not asked again.
func (s *Store) setIfEqual(ctx context.Context, c *completeArgs, key, held string, err *error) bool {
	if s.noIfEqual.Load() {
		return false
	}
	c.held = held
	cmd := redis.NewStatusCmd(ctx, append(c.argv[:0], "set", &c.k, &c.args[1], "ifeq", &c.held, "px", &c.ttl)...)
	unreplicated := s.process(ctx, c.k, nil, cmd)
	switch e := cmd.Err(); {
	case e == nil && unreplicated != nil:
		*err = s.unavailable(ctx, "complete", key, unreplicated)
	case e == nil:
		*err = nil
	case errors.Is(e, redis.Nil):
		return false
	case isReply(e):
		// The server wrote nothing. One that does not know IFEQ (Redis before 8.4, a proxy that
		// checks arguments) is not asked again; any other error reply (OOM, a read-only
		// replica) is the script's to meet and report.
		if msg := e.Error(); strings.Contains(msg, "syntax error") || strings.Contains(msg, "unknown") ||
			strings.Contains(msg, "wrong number of arguments") {
			s.noIfEqual.Store(true)
		}
		return false
	default:
		*err = s.unavailable(ctx, "complete", key, e)
	}
	return true
}

// completeArgs holds a complete's arguments: the buffer that the holder's prefix and the completed
// record are encoded into, and the rest, which go-redis reaches through pointers (see setArgs).
// Recycled: go-redis has written them to the connection by the time the round trip returns.
type completeArgs struct {
	buf   []byte
	k     string
	stage string      // where a staged complete writes the record first (stageKey)
	held  string      // the in-progress value SET ... IFEQ compares with (setIfEqual)
	args  [3]bytesArg // slices of buf
	ttl   int64
	argv  [9]any
	set   [5]any // a staged complete's SET
}

var completions = sync.Pool{New: func() any { return new(completeArgs) }}

// bytesArg is a command argument that go-redis writes as it is, without a copy, and boxes
// without an allocation when passed by pointer.
type bytesArg []byte

func (b *bytesArg) MarshalBinary() ([]byte, error) { return *b, nil }

// Release implements idem.Store.
//
//idemkit:release
func (s *Store) Release(ctx context.Context, key, token string) error {
	s.held.take(token)
	return s.fenced(ctx, "release", releaseScript, key, []any{nil, nil, "1", s.prefix + key, heldPrefix(token)}, nil)
}

// Extend implements idem.Store.
func (s *Store) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if err := idem.CheckDuration("lease", lease); err != nil {
		return err
	}
	// The script rewrites the lease into the value, on the server's clock: from now on (even if
	// the reply is lost) the value the claim wrote is not the key's, and a complete compares
	// through a script rather than SET ... IFEQ.
	s.held.extended(token)
	return s.fenced(ctx, "extend", extendScript, key, []any{nil, nil, "1", s.prefix + key, heldPrefix(token), lease.Milliseconds()}, nil)
}

// fenced runs a script that writes only when the holder whose prefix it is given (heldPrefix,
// argv[4]) holds the key, and replies 1 if it did. argv is as run takes it.
func (s *Store) fenced(ctx context.Context, op string, script *script, key string, argv, pre []any) error {
	cmd, unreplicated := run(ctx, s, script, redis.NewIntCmd, argv, pre)
	if err := cmd.Err(); err != nil {
		return s.unavailable(ctx, op, key, err)
	}
	if cmd.Val() != 1 {
		return fmt.Errorf("redisstore: %s %q: %w", op, key, idem.ErrLeaseLost)
	}
	if unreplicated != nil {
		return s.unavailable(ctx, op, key, unreplicated)
	}
	return nil
}

// Get implements idem.Store.
func (s *Store) Get(ctx context.Context, key string) (idem.Record, error) {
	got, _ := run(ctx, s, getScript, redis.NewCmd, []any{nil, nil, "1", s.prefix + key}, nil)
	reply, err := got.Result()
	if errors.Is(err, redis.Nil) {
		return idem.Record{}, fmt.Errorf("redisstore: get %q: %w", key, idem.ErrNotFound)
	}
	if err != nil {
		return idem.Record{}, s.unavailable(ctx, "get", key, err)
	}
	rec, err := decodeGot(key, reply, time.Now())
	if err != nil {
		return idem.Record{}, fmt.Errorf("redisstore: get %q: %w", key, err)
	}
	return rec, nil
}

func decodeGot(key string, reply any, now time.Time) (idem.Record, error) {
	r, _ := reply.([]any)
	if len(r) != 2 {
		return idem.Record{}, fmt.Errorf("unexpected reply %v", reply)
	}
	v, _ := r[0].(string)
	if v != "" && v[0] == 'C' {
		return decodeDone(key, v, "", nil)
	}
	pttl, _ := r[1].(int64)
	rec, _, err := decodeHeld(key, v, pttl, now)
	return rec, err
}

// releaseUnreplicated takes back a claim the replicas did not acknowledge, so that a retry need
// not wait for its lease; if this fails too, the lease runs out as a crashed holder's would.
func (s *Store) releaseUnreplicated(key, token string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout+time.Second)
	defer cancel()
	_ = s.Release(ctx, key, token)
}

// unavailable wraps a failed round trip: the store cannot answer, so the caller must fail
// closed. A key holding something other than a string is named, with the way out.
func (s *Store) unavailable(ctx context.Context, op, key string, err error) error {
	what := "redisstore: " + op + " " + strconv.Quote(key)
	if strings.Contains(err.Error(), "WRONGTYPE") {
		what += fmt.Sprintf(": key %q is not a string: it holds another program's data or a record "+
			"of an older redisstore (a hash); give this store a Prefix of its own, or let the old "+
			"records expire before upgrading", s.prefix+key)
	}
	return idem.Unavailable(ctx, what, err)
}

// script is a Lua script run by its SHA-1, sent in full only when the server has not seen it
// (a restart, a new master after a failover).
type script struct {
	src, sha string
	// fn names the script as a Redis function of library lib, when it is one (newFunction).
	fn, lib string
}

func newScript(src string) *script {
	return &script{src: src, sha: redis.NewScript(src).Hash()}
}

// newFunction makes a script that runs as a Redis function (FCALL) named after op and its
// source's SHA-1, in a library of its own that the store loads (FUNCTION LOAD) where FCALL finds
// no such function: on first use, after a restart, on a new master. Redis runs a function by
// name for about 3,000 instructions less than EVALSHA runs the same script (of some 47,000 for
// the complete script), which is why the script on a new key's path is one. A server that
// refuses to load it (an ACL without FUNCTION, a Redis-compatible server without functions)
// runs it through EVALSHA instead. The name changes with the source, so two versions of this
// store never replace each other's function.
func newFunction(op, src string) *script {
	sc := newScript(src)
	lib := "redisstore_" + sc.sha[:16]
	sc.fn = lib + "_" + op
	sc.lib = "#!lua name=" + lib + "\nredis.register_function('" + sc.fn + "', function(KEYS, ARGV)\n" + src + "\nend)\n"
	return sc
}

// loadFunction loads sc's library where key's commands go — on every master of a cluster, every
// shard of a ring — and says whether it is there now.
func (s *Store) loadFunction(ctx context.Context, sc *script) bool {
	load := func(ctx context.Context, node Client) error {
		cmd := redis.NewStringCmd(ctx, "function", "load", sc.lib)
		_ = node.Process(ctx, cmd)
		if err := cmd.Err(); err != nil && !strings.Contains(err.Error(), "already exists") {
			return err
		}
		return nil // loaded, by this call or another
	}
	var err error
	switch c := s.rdb.(type) {
	case interface {
		ForEachMaster(context.Context, func(context.Context, *redis.Client) error) error
	}:
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return load(ctx, m) })
	case interface {
		ForEachShard(context.Context, func(context.Context, *redis.Client) error) error
	}:
		err = c.ForEachShard(ctx, func(ctx context.Context, m *redis.Client) error { return load(ctx, m) })
	default:
		err = load(ctx, s.rdb)
	}
	if refused(err) {
		s.noFunctions.Store(true)
	}
	return err == nil
}

// isReply: err is the server's error reply, not a failed round trip.
func isReply(err error) bool {
	var reply redis.Error
	return errors.As(err, &reply)
}

// refused: the server does not let this client use functions (an ACL), or has none.
func refused(err error) bool {
	return isReply(err) && (redis.HasErrorPrefix(err, "NOPERM") || strings.Contains(err.Error(), "unknown command") ||
		strings.Contains(err.Error(), "unknown subcommand"))
}

// run runs the script with argv: nil, nil, the number of keys, its keys (each a string or a
// *string), then its arguments; run fills in the first two. pre, when not nil, is a command sent
// before the script in the same round trip, every time it is sent; when pre fails, the reply is
// its error. The reply is parsed into the type of the command newCmd makes; a nil reply is
// redis.Nil. unreplicated is process's.
func run[C redis.Cmder](ctx context.Context, s *Store, sc *script, newCmd func(context.Context, ...any) C, argv, pre []any) (cmd C, unreplicated error) {
	var key string
	switch k := argv[3].(type) {
	case string:
		key = k
	case *string:
		key = *k
	}
	send := func() {
		cmd = newCmd(ctx, argv...)
		if pre == nil {
			unreplicated = s.process(ctx, key, nil, cmd)
			return
		}
		first := redis.NewStatusCmd(ctx, pre...)
		unreplicated = s.process(ctx, key, first, cmd)
		if err := first.Err(); err != nil {
			cmd.SetErr(err)
		}
	}
	if sc.fn != "" && !s.noFunctions.Load() {
		argv[0], argv[1] = "fcall", &sc.fn
		for loaded := false; ; loaded = true {
			send()
			err := cmd.Err()
			if err == nil {
				return cmd, unreplicated
			}
			missing := isReply(err) && strings.Contains(err.Error(), "unction not found")
			if !missing && !refused(err) {
				return cmd, unreplicated
			}
			// FCALL ran nothing: load the function and call it again, once; failing that, and from
			// then on if the server will not have it, EVALSHA.
			if loaded || !missing {
				s.noFunctions.Store(true)
				break
			}
			if !s.loadFunction(ctx, sc) {
				break
			}
		}
	}
	argv[0], argv[1] = "evalsha", &sc.sha
	send()
	if err := cmd.Err(); err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") {
		argv[0], argv[1] = "eval", &sc.src
		send()
	}
	return cmd, unreplicated
}
