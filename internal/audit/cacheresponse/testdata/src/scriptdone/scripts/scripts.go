// Package scripts keeps the Lua scripts of the service, for the packages
// that run them.
package scripts

import "github.com/redis/go-redis/v9"

// The scripts, made once.
var (
	// Claim sets the key only when it is absent and says whether it did.
	Claim = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], 'processing', 'PX', ARGV[1])
return 1`)
	// Done marks the key done, keeping nothing of the response.
	Done = redis.NewScript(`redis.call('SET', KEYS[1], 'done', 'EX', ARGV[1]) return 1`)
	// Save stores the response it is given.
	Save = redis.NewScript(`redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1`)
)
