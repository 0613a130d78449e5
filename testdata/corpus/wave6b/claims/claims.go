// Package claims keeps the Lua scripts the notification workers claim
// deliveries with, made once for the packages that run them.
package claims

import (
	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/rueidis"
)

var (
	// Delivery takes a delivery's key when it is absent, with an expiry
	// in seconds: 1 when this caller took it.
	Delivery = redigo.NewScript(1, `if redis.call("SET", KEYS[1], ARGV[1], "NX", "EX", ARGV[2]) then return 1 end return 0`)
	// Receipt takes a read receipt's key when it is absent.
	Receipt = rueidis.NewLuaScript(`return redis.call('SETNX', KEYS[1], ARGV[1])`)
)
