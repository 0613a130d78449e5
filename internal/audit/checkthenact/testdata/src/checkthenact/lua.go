package checkthenact

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// luaSeen only reads the marker: the script is a GET.
var luaSeen = redis.NewScript(`return redis.call('GET', KEYS[1])`)

// luaMark writes the marker whether or not it is there: a SET.
var luaMark = redis.NewScript(`redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1`)

// luaOnce writes the marker only when the GET found nothing, in one step.
var luaOnce = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1`)

func consumeLuaRead(ctx context.Context, rdb *redis.Client, id string, pay func() error) error {
	key := "seen:" + id
	if _, err := luaSeen.Run(ctx, rdb, []string{key}).Result(); err == nil {
		return nil
	}
	if err := pay(); err != nil {
		return err
	}
	return rdb.Set(ctx, key, 1, 72*time.Hour).Err() // want `SET of key after the GET at lua.go:25 races with a concurrent retry`
}

func consumeLuaReadThenMark(ctx context.Context, rdb *redis.Client, id string, pay func() error) error {
	key := "seen:" + id
	if _, err := luaSeen.Run(ctx, rdb, []string{key}).Result(); err == nil {
		return nil
	}
	if err := pay(); err != nil {
		return err
	}
	return luaMark.Run(ctx, rdb, []string{key}, 1, 259200).Err() // want `SET of key after the GET at lua.go:36 races with a concurrent retry`
}

func consumeLuaOnce(ctx context.Context, rdb *redis.Client, id string, pay func() error) error {
	key := "seen:" + id
	won, err := luaOnce.Run(ctx, rdb, []string{key}, 1, 259200).Int()
	if err != nil || won == 0 {
		return err
	}
	return pay()
}
