package calls

import (
	"context"
	"time"

	redis8 "github.com/go-redis/redis/v8"
	"github.com/redis/go-redis/v9"
)

func redisHashesAndSets(ctx context.Context, rdb *redis.Client, id, key string, ids []any) {
	rdb.HGet(ctx, "payout:"+id, "status")                                     // want `redis HGet HGET` `access read HGET record="redis hash payout:\{\} status" keys=<"payout:" \+ id; "status"> dest=<> for-update=false appends=false added=false pipelined=false watch=false`
	rdb.HGetAll(ctx, key)                                                     // want `redis HGetAll HGET key=\*ast.Ident command=HGETALL$` `access read HGETALL record="redis hash {}" keys=<key> dest=<>`
	rdb.HExists(ctx, "processed", id)                                         // want `redis HExists HEXISTS` `access read HEXISTS record="redis hash processed" keys=<"processed"; id>`
	rdb.SIsMember(ctx, "seen", id)                                            // want `redis SIsMember SISMEMBER` `access read SISMEMBER record="redis set seen" keys=<"seen"; id>`
	rdb.SMIsMember(ctx, "seen", id, key)                                      // want `redis SMIsMember SISMEMBER` `access read SMISMEMBER record="redis set seen" keys=<"seen"; id; key>`
	rdb.HSet(ctx, "processed", id, 1)                                         // want `redis HSet HSET` `access write HSET record="redis hash processed" keys=<"processed"; id> dest=<> for-update=false appends=false added=true`
	rdb.HSet(ctx, key, map[string]any{"a": 1})                                // want `redis HSet HSET` `access write HSET record="redis hash {}" keys=<key> dest=<>`
	rdb.HMSet(ctx, key, "status", "done", "at", 1)                            // want `redis HMSet HSET` `access write HMSET record="redis hash {} status" keys=<key; "status"; "at"> dest=<> for-update=false appends=false added=false`
	rdb.SAdd(ctx, "seen", id)                                                 // want `redis SAdd SADD` `access write SADD record="redis set seen" keys=<"seen"; id> dest=<> for-update=false appends=false added=true .* key-record="redis seen"`
	rdb.SAdd(ctx, "seen", ids...)                                             // want `redis SAdd SADD` `access write SADD record="redis set seen" keys=<"seen"> dest=<>`
	rdb.HSetNX(ctx, "idem:"+id, "status", "run")                              // want `redis HSetNX HSETNX` `access claim HSETNX record="redis hash idem:\{\} status" keys=<"idem:" \+ id; "status"> dest=<> for-update=false appends=false added=false pipelined=false watch=false key-record="redis idem:\{\}"`
	rdb.HDel(ctx, "idem:"+id, "status")                                       // want `redis HDel HDEL` `access delete HDEL record="redis hash idem:\{\} status" keys=<"idem:" \+ id; "status">`
	rdb.SRem(ctx, "seen", id)                                                 // want `redis SRem SREM` `access delete SREM record="redis set seen" keys=<"seen"; id>`
	rdb.Incr(ctx, "count:"+id)                                                // want `redis Incr INCR` `access write INCR record="redis count:\{\}" keys=<"count:" \+ id> dest=<> for-update=false appends=true added=true`
	rdb.IncrBy(ctx, key, 5)                                                   // want `redis IncrBy INCR` `access write INCRBY record="redis {}" keys=<key> dest=<> for-update=false appends=true added=true`
	rdb.LPush(ctx, "jobs", id)                                                // want `redis LPush PUSH` `access write LPUSH record="redis list jobs" keys=<"jobs"> dest=<> for-update=false appends=true added=false`
	rdb.RPush(ctx, "jobs", id)                                                // want `redis RPush PUSH` `access write RPUSH record="redis list jobs"`
	rdb.XAdd(ctx, &redis.XAddArgs{Stream: "events", Values: []any{"id", id}}) // want `redis XAdd XADD` `access write XADD record="redis stream events" keys=<"events"> dest=<> for-update=false appends=true`
	rdb.Do(ctx, "SADD", "seen", id)                                           // want `redis Do SADD` `access write SADD record="redis set seen" keys=<"seen"; id> dest=<> for-update=false appends=false added=true`
	rdb.Do(ctx, "hgetall", key)                                               // want `redis Do HGET` `access read HGETALL record="redis hash {}" keys=<key>`
	rdb.Do(ctx, "HSETNX", key, "status", 1)                                   // want `redis Do HSETNX` `access claim HSETNX record="redis hash {} status" keys=<key; "status">`
	rdb.Do(ctx, "XADD", "events", "*", "id", id)                              // want `redis Do XADD` `access write XADD record="redis stream events" keys=<"events">`
}

// hashLike has go-redis's method names and is not a Redis client.
type hashLike struct{}

func (hashLike) HGet(ctx context.Context, key, field string) string { return "" }
func (hashLike) SAdd(ctx context.Context, key string, m ...any) int { return 0 }
func (hashLike) Incr(ctx context.Context, key string) int           { return 0 }

func redisLookAlikes(ctx context.Context, rdb *redis.Client, h hashLike, cmd, key string, args *redis.XAddArgs) {
	h.HGet(ctx, key, "status")
	h.SAdd(ctx, "seen", key)
	h.Incr(ctx, key)
	rdb.Do(ctx, cmd, key)
	rdb.Do(ctx, "PING", key)
	rdb.XAdd(ctx, args)
}

func redisConditionalSets(ctx context.Context, rdb *redis.Client, key, ver string) {
	rdb.SetXX(ctx, "idem:"+key, "done", time.Hour)       // want `access guarded update SET XX record="redis idem:\{\}" keys=<"idem:" \+ key> .* key-record="redis idem:\{\}"`
	rdb.Do(ctx, "SET", "idem:"+key, "done", "IFEQ", ver) // want `access guarded update SET IFEQ record="redis idem:\{\}"`
	rdb.SetArgs(ctx, key, 1, redis.SetArgs{Mode: ver})
	rdb.SetArgs(ctx, key, 1, redis.SetArgs{Mode: "xx", Get: true}) // want `access guarded update SET XX`
	rdb.Do(ctx, "EXPIRE", key, 60, "XX")
	rdb.Do(ctx, "GET", key, "XX") // want `redis Do GET` `access read GET`
}

func redisPipelines(ctx context.Context, rdb *redis.Client, id string) {
	rdb.Pipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.SIsMember(ctx, "seen", id) // want `redis SIsMember` `access read SISMEMBER record="redis set seen" .* pipelined=true watch=false`
		pipe.SAdd(ctx, "seen", id)      // want `redis SAdd` `access write SADD record="redis set seen" .* pipelined=true watch=false`
		return nil
	})
	p := rdb.TxPipeline()
	p.Incr(ctx, "n:"+id)     // want `redis Incr` `access write INCR .* pipelined=true watch=false`
	rdb.Get(ctx, "idem:"+id) // want `redis Get` `access read GET .* pipelined=false watch=false`
	rdb.Watch(ctx, func(tx *redis.Tx) error {
		tx.Get(ctx, "idem:"+id) // want `redis Get` `access read GET record="redis idem:\{\}" .* pipelined=false watch=true`
		_, err := tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			pipe.Set(ctx, "idem:"+id, 1, time.Hour) // want `redis Set` `access write SET record="redis idem:\{\}" .* pipelined=true watch=true`
			return nil
		})
		_, _ = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
			var other redis.Pipeliner
			other = rdb.Pipeline()
			other.Set(ctx, "idem:"+id, 1, 0) // want `redis Set` `access write SET .* pipelined=true watch=false`
			return nil
		})
		q := tx.TxPipeline()
		q.HSet(ctx, "idem:"+id, "status", "done") // want `redis HSet` `access write HSET .* pipelined=true watch=true`
		rdb.Set(ctx, "other:"+id, 1, 0)           // want `redis Set` `access write SET record="redis other:\{\}" .* pipelined=false watch=false`
		return err
	}, "idem:"+id)
}

func redisV8(ctx context.Context, rdb *redis8.Client, c redis8.Cmdable, id string) {
	rdb.Get(ctx, "idem:"+id)                   // want `redis Get GET` `access read GET record="redis idem:\{\}" keys=<"idem:" \+ id>`
	c.SetNX(ctx, "idem:"+id, 1, time.Hour)     // want `redis SetNX SET NX` `access claim SET NX record="redis idem:\{\}"`
	c.HSetNX(ctx, "idem:"+id, "status", "run") // want `redis HSetNX HSETNX` `access claim HSETNX record="redis hash idem:\{\} status"`
	rdb.SAdd(ctx, "seen", id)                  // want `redis SAdd SADD` `access write SADD record="redis set seen" .* added=true`
	rdb.Do(ctx, "SET", "idem:"+id, 1, "NX")    // want `redis Do SET NX` `access claim SET NX`
	rdb.Do(ctx, "PING")
	rdb.Do(ctx, "SET", "idem:"+id, 1, "XX") // want `access guarded update SET XX`
	rdb.Watch(ctx, func(tx *redis8.Tx) error {
		tx.Get(ctx, "idem:"+id) // want `redis Get GET` `access read GET .* watch=true`
		_, err := tx.TxPipelined(ctx, func(pipe redis8.Pipeliner) error {
			pipe.Set(ctx, "idem:"+id, 1, 0) // want `redis Set SET` `access write SET .* pipelined=true watch=true`
			return nil
		})
		return err
	})
	rdb.Pipelined(ctx, func(pipe redis8.Pipeliner) error {
		pipe.Exists(ctx, "idem:"+id) // want `redis Exists` `access read EXISTS .* pipelined=true watch=false`
		return nil
	})
}
