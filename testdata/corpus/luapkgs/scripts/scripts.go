// Package scripts holds the Redis Lua scripts of the fulfilment service,
// made once and shared by the packages that run them.
package scripts

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// ReserveLua takes a reservation key for one attempt: SETNX, then a
// lease, in one script.
//
//go:embed lua/reserve.lua
var ReserveLua string

// RecordLua stores a result under its key, whatever was there.
const RecordLua = `
local key, body, ttl = KEYS[1], ARGV[1], ARGV[2]
redis.call('SET', key, body, 'EX', ttl)
return 'OK'
`

// AddLua sets a key only when it is absent, as a cache's Add does.
const AddLua = `return redis.call('exists',KEYS[1])<1 and redis.call('setex',KEYS[1],ARGV[2],ARGV[1])`

// The scripts, made once at start-up.
var (
	Reserve = redis.NewScript(ReserveLua)
	Record  = redis.NewScript(RecordLua)
	// Stamp swaps the key's value and hands back the one it held: nil to
	// the one caller that found it absent.
	Stamp = redis.NewScript(`return redis.call('GETSET', KEYS[1], ARGV[1])`)
)
