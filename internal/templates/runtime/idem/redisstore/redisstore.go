// Package redisstore keeps idempotency records in Redis.
//
// Each Store method is one Lua script on one key: the check and the write happen in a single
// atomic round trip, so no other client can slip between them, and a script touches only the key
// it is given, so the store works on Redis Cluster. Times come from the Redis server's clock
// (TIME), so application servers with skewed clocks agree on leases, and every record carries a
// server-side expiry, so nothing outlives its TTL even if no client comes back.
//
// A record is a hash: st (p in progress, c completed), fp (fingerprint), tok and lx (lease token
// and expiry, in progress only), ex (record expiry), and sc, hd, bd (status, headers as JSON,
// body) once completed. Times are Unix milliseconds.
package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DefaultPrefix is put before every key when Options.Prefix is empty.
const DefaultPrefix = "idem:"

// Options configures a Store.
type Options struct {
	// Prefix is put before every key, so idempotency records can share a Redis with other data.
	// Default DefaultPrefix.
	Prefix string
}

// Store is an idem.Store on Redis.
type Store struct {
	rdb    redis.Scripter
	prefix string
}

var _ idem.Store = (*Store)(nil)

// New returns a Store over rdb: a *redis.Client, *redis.ClusterClient, *redis.Ring or any other
// client that runs scripts.
func New(rdb redis.Scripter, opts Options) *Store {
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	return &Store{rdb: rdb, prefix: opts.Prefix}
}

// luaNow is the server's time in milliseconds; Redis 7 replicates a script's effects, not the
// script, so reading the clock before writing is allowed.
const luaNow = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

// claimScript: KEYS[1] the record; ARGV fingerprint, token, lease ms, ttl ms.
// Replies {outcome, fingerprint, state, lease expiry, expiry, retry-after ms or status, headers,
// body}.
var claimScript = redis.NewScript(luaNow + `
local lease, ttl = tonumber(ARGV[3]), tonumber(ARGV[4])
local r = redis.call('HMGET', KEYS[1], 'st', 'fp', 'lx', 'ex')
local function hold(outcome)
  local lx = now + lease
  local ex = now + math.max(lease, ttl)
  redis.call('HSET', KEYS[1], 'st', 'p', 'fp', ARGV[1], 'tok', ARGV[2], 'lx', lx, 'ex', ex)
  redis.call('PEXPIREAT', KEYS[1], ex)
  return {outcome, ARGV[1], 'p', lx, ex}
end
if not r[1] then
  return hold('claimed')
end
if r[2] ~= ARGV[1] then
  return {'mismatch', r[2], r[1], r[3] or '', r[4]}
end
if r[1] == 'c' then
  local c = redis.call('HMGET', KEYS[1], 'sc', 'hd', 'bd')
  return {'replay', r[2], r[1], '', r[4], c[1], c[2], c[3]}
end
if tonumber(r[3]) > now then
  return {'busy', r[2], r[1], r[3], r[4], tonumber(r[3]) - now}
end
return hold('taken')
`)

// completeScript: KEYS[1]; ARGV token, status, headers, body, ttl ms. Replies 1, or 0 when the
// token does not hold the key.
var completeScript = redis.NewScript(luaNow + `
local r = redis.call('HMGET', KEYS[1], 'st', 'tok')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
local ex = now + tonumber(ARGV[5])
redis.call('HDEL', KEYS[1], 'tok', 'lx')
redis.call('HSET', KEYS[1], 'st', 'c', 'sc', ARGV[2], 'hd', ARGV[3], 'bd', ARGV[4], 'ex', ex)
redis.call('PEXPIREAT', KEYS[1], ex)
return 1
`)

// releaseScript: KEYS[1]; ARGV token. Replies 1, or 0 when the token does not hold the key.
var releaseScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'st', 'tok')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`)

// extendScript: KEYS[1]; ARGV token, lease ms. Replies 1, or 0 when the token does not hold the
// key. The record is kept at least as long as the renewed lease.
var extendScript = redis.NewScript(luaNow + `
local r = redis.call('HMGET', KEYS[1], 'st', 'tok', 'ex')
if r[1] ~= 'p' or r[2] ~= ARGV[1] then return 0 end
local lx = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'lx', lx)
if tonumber(r[3]) < lx then
  redis.call('HSET', KEYS[1], 'ex', lx)
  redis.call('PEXPIREAT', KEYS[1], lx)
end
return 1
`)

// getScript: KEYS[1]. Replies {fingerprint, state, lease expiry, expiry, status, headers, body},
// or nil when there is no record.
var getScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'fp', 'st', 'lx', 'ex', 'sc', 'hd', 'bd')
if not r[1] then return false end
return r
`)

// Claim implements idem.Store.
//
//idemkit:claim
func (s *Store) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (idem.Claim, error) {
	if err := idem.CheckClaim(key, fingerprint, lease, ttl); err != nil {
		return idem.Claim{}, err
	}
	token := idem.NewToken()
	reply, err := claimScript.Run(ctx, s.rdb, []string{s.prefix + key}, fingerprint, token, lease.Milliseconds(), ttl.Milliseconds()).Slice()
	if err != nil {
		return idem.Claim{}, idem.Unavailable(ctx, "redisstore: claim "+strconv.Quote(key), err)
	}
	c, err := decodeClaim(key, token, reply)
	if err != nil {
		return idem.Claim{}, fmt.Errorf("redisstore: claim %q: %w", key, err)
	}
	return c, nil
}

func decodeClaim(key, token string, reply []any) (idem.Claim, error) {
	if len(reply) < 5 {
		return idem.Claim{}, fmt.Errorf("short reply %v", reply)
	}
	rec, err := decodeRecord(key, reply[1:])
	if err != nil {
		return idem.Claim{}, err
	}
	outcome, _ := reply[0].(string)
	var retryAfter time.Duration
	if outcome == "busy" {
		ms, _ := reply[5].(int64)
		retryAfter = time.Duration(ms) * time.Millisecond
	}
	return idem.NewClaim(outcome, token, rec, retryAfter)
}

// decodeRecord reads {fingerprint, state, lease expiry, expiry[, status, headers, body]}; the
// response, when present, only for a completed record. Lua numbers arrive as integers, hash
// fields as strings, absent fields as nil.
func decodeRecord(key string, f []any) (idem.Record, error) {
	str := func(i int) string {
		if i >= len(f) {
			return ""
		}
		switch v := f[i].(type) {
		case string:
			return v
		case int64:
			return strconv.FormatInt(v, 10)
		}
		return ""
	}
	ms := func(i int) (time.Time, error) {
		if str(i) == "" {
			return time.Time{}, nil
		}
		n, err := strconv.ParseInt(str(i), 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("bad time %q: %w", str(i), err)
		}
		return time.UnixMilli(n), nil
	}
	rec := idem.Record{Key: key, Fingerprint: str(0)}
	var err1, err2 error
	rec.LeaseExpires, err1 = ms(2)
	rec.Expires, err2 = ms(3)
	if err := errors.Join(err1, err2); err != nil {
		return idem.Record{}, err
	}
	switch str(1) {
	case "p":
		rec.State = idem.StateInProgress
	case "c":
		rec.State = idem.StateCompleted
		if len(f) < 7 {
			break // a mismatch: the stored response is not for this caller
		}
		status, err := strconv.Atoi(str(4))
		if err != nil {
			return idem.Record{}, fmt.Errorf("bad status %q: %w", str(4), err)
		}
		var h http.Header
		if err := json.Unmarshal([]byte(str(5)), &h); err != nil {
			return idem.Record{}, fmt.Errorf("bad headers: %w", err)
		}
		rec.Response = idem.Response{Status: status, Header: h, Body: []byte(str(6))}
	default:
		return idem.Record{}, fmt.Errorf("bad state %q", str(1))
	}
	return rec, nil
}

// Complete implements idem.Store.
//
//idemkit:complete
func (s *Store) Complete(ctx context.Context, key, token string, resp idem.Response, ttl time.Duration) error {
	if err := idem.CheckDuration("ttl", ttl); err != nil {
		return err
	}
	header, err := json.Marshal(resp.Header)
	if err != nil {
		return fmt.Errorf("redisstore: complete %q: headers: %w", key, err)
	}
	return s.fenced(ctx, "complete", completeScript, key, token, resp.Status, header, resp.Body, ttl.Milliseconds())
}

// Release implements idem.Store.
//
//idemkit:release
func (s *Store) Release(ctx context.Context, key, token string) error {
	return s.fenced(ctx, "release", releaseScript, key, token)
}

// Extend implements idem.Store.
func (s *Store) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if err := idem.CheckDuration("lease", lease); err != nil {
		return err
	}
	return s.fenced(ctx, "extend", extendScript, key, token, lease.Milliseconds())
}

// fenced runs a script that writes only when token holds the key, and replies 1 if it did.
func (s *Store) fenced(ctx context.Context, op string, script *redis.Script, key, token string, args ...any) error {
	n, err := script.Run(ctx, s.rdb, []string{s.prefix + key}, append([]any{token}, args...)...).Int()
	if err != nil {
		return idem.Unavailable(ctx, fmt.Sprintf("redisstore: %s %q", op, key), err)
	}
	if n != 1 {
		return fmt.Errorf("redisstore: %s %q: %w", op, key, idem.ErrLeaseLost)
	}
	return nil
}

// Get implements idem.Store.
func (s *Store) Get(ctx context.Context, key string) (idem.Record, error) {
	reply, err := getScript.Run(ctx, s.rdb, []string{s.prefix + key}).Slice()
	if errors.Is(err, redis.Nil) {
		return idem.Record{}, fmt.Errorf("redisstore: get %q: %w", key, idem.ErrNotFound)
	}
	if err != nil {
		return idem.Record{}, idem.Unavailable(ctx, "redisstore: get "+strconv.Quote(key), err)
	}
	rec, err := decodeRecord(key, reply)
	if err != nil {
		return idem.Record{}, fmt.Errorf("redisstore: get %q: %w", key, err)
	}
	return rec, nil
}
