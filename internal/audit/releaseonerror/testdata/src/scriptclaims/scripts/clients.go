package scripts

import (
	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/rueidis"
)

// The claim scripts of the services on redigo and rueidis.
var (
	// RedigoClaim takes the job's key when it is absent: 1 when taken.
	RedigoClaim = redigo.NewScript(1, `if redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2]) then return 1 end return 0`)
	// RueidisClaim takes the event's key when it is absent.
	RueidisClaim = rueidis.NewLuaScript(`return redis.call('SETNX', KEYS[1], ARGV[1])`)
)
