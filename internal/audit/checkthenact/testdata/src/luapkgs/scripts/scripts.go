// Package scripts keeps the service's Lua scripts, for the repositories
// of other packages to run.
package scripts

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// MarkDoneLua writes the done marker: a SET, whoever checked before.
const MarkDoneLua = `redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1`

// ClaimLua takes a key that is absent, in one step.
//
//go:embed lua/claim.lua
var ClaimLua string

// PeekLua reads the marker.
var PeekLua = "return redis.call('get', KEYS[1])"

// The scripts, made once.
var (
	MarkDone = redis.NewScript(MarkDoneLua)
	Claim    = redis.NewScript(ClaimLua)
	Peek     = redis.NewScript(PeekLua)
	// Add sets the key only when it is absent, as a cache's Add does.
	Add = redis.NewScript(`return redis.call('exists',KEYS[1])<1 and redis.call('setex',KEYS[1],ARGV[2],ARGV[1])`)
	// Swap hands back what the key held: nil to the one caller that
	// found it absent.
	Swap = redis.NewScript(`return redis.call('GETSET', KEYS[1], ARGV[1])`)
	// Touch writes whatever was there; the old value is dropped.
	Touch = redis.NewScript(`redis.call('GETSET', KEYS[1], ARGV[1]) return 1`)
)

// Mark is made in init, from a source of this package.
var Mark *redis.Script

func init() {
	Mark = redis.NewScript(MarkDoneLua)
}
