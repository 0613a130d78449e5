// Package scripts holds the Redis Lua scripts of the settlement service,
// embedded or written here once and run by the packages that need them.
package scripts

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// LockLua takes a key for one worker, with a lease.
//
//go:embed lua/lock.lua
var LockLua string

// The scripts, made once at start-up.
var (
	Lock = redis.NewScript(LockLua)
	// Unlock deletes the key only while it still holds the caller's
	// token: a compare-and-delete.
	Unlock = redis.NewScript(`
if redis.call('get', KEYS[1]) == ARGV[1] then
	return redis.call('del', KEYS[1])
end
return 0`)
	// Begin marks a request in progress when nobody has.
	Begin = redis.NewScript(`
if redis.call('exists', KEYS[1]) == 1 then return 0 end
redis.call('set', KEYS[1], 'in_progress', 'PX', ARGV[1])
return 1`)
	// Finish marks the request done.
	Finish = redis.NewScript(`redis.call('set', KEYS[1], 'done', 'EX', ARGV[1]) return 1`)
	// Store keeps the response the request answered with.
	Store = redis.NewScript(`redis.call('set', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1`)
)
