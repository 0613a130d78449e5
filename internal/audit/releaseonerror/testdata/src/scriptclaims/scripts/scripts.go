// Package scripts keeps the Lua scripts of the service, for the packages
// that run them.
package scripts

import "github.com/redis/go-redis/v9"

// ClaimLua takes the key when it is absent, with a lease.
const ClaimLua = `return redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2])`

// ReleaseLua gives the key back when it still holds the caller's token.
const ReleaseLua = `
if redis.call("get", KEYS[1]) == ARGV[1] then
	return redis.call("del", KEYS[1])
end
return 0`

// The scripts, made once.
var (
	Claim   = redis.NewScript(`if redis.call("SETNX", KEYS[1], ARGV[1]) == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[2]) return 1 end return 0`)
	Release = redis.NewScript(ReleaseLua)
	// EnqueueUnique takes a task's uniqueness lock and enqueues it: -1 when
	// the lock is someone else's, 0 when the task ID is taken, 1 when queued.
	EnqueueUnique = redis.NewScript(`local ok = redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2])
if not ok then
  return -1
end
if redis.call("EXISTS", KEYS[2]) == 1 then
  return 0
end
redis.call("LPUSH", KEYS[3], ARGV[1])
return 1`)
	// Limit counts the caller's requests in a window: no claim.
	Limit = redis.NewScript(`local n = redis.call("INCR", KEYS[1]) if n == 1 then redis.call("EXPIRE", KEYS[1], ARGV[1]) end return n`)
)
