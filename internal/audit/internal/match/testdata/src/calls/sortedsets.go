package calls

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

func redisSwapsAndSortedSets(ctx context.Context, rdb *redis.Client, id string, now float64, ids []redis.Z) {
	rdb.GetSet(ctx, "idem:"+id, "pending")                                                              // want `redis GetSet SET NX key=\*ast.BinaryExpr command=GETSET$` `access claim GETSET record="redis idem:\{\}" keys=<"idem:" \+ id>`
	rdb.Do(ctx, "GETSET", "idem:"+id, "pending")                                                        // want `redis Do SET NX key=\*ast.BinaryExpr command=GETSET$` `access claim GETSET record="redis idem:\{\}"`
	rdb.ZScore(ctx, "window:"+id, id)                                                                   // want `redis ZScore ZSCORE` `access read ZSCORE record="redis zset window:\{\}" keys=<"window:" \+ id; id> dest=<>`
	rdb.ZRank(ctx, "window", id)                                                                        // want `redis ZRank ZSCORE key="window" command=ZRANK` `access read ZRANK record="redis zset window" keys=<"window"; id>`
	rdb.ZAdd(ctx, "window", redis.Z{Score: now, Member: id})                                            // want `redis ZAdd ZADD` `access write ZADD record="redis zset window" keys=<"window"; id> dest=<> for-update=false appends=false added=true .* key-record="redis window"`
	rdb.ZAddNX(ctx, "window", redis.Z{Score: now, Member: id})                                          // want `redis ZAddNX ZADD key="window" command=ZADD` `access write ZADD record="redis zset window" keys=<"window"; id> dest=<> for-update=false appends=false added=true`
	rdb.ZAddArgs(ctx, "window", redis.ZAddArgs{NX: true, Members: []redis.Z{{Score: now, Member: id}}}) // want `redis ZAddArgs ZADD key="window" command=ZADD` `access write ZADD record="redis zset window" keys=<"window"; id> dest=<> for-update=false appends=false added=true`
	rdb.ZAdd(ctx, "window", ids...)                                                                     // want `redis ZAdd ZADD` `access write ZADD record="redis zset window" keys=<"window"> dest=<>`
	rdb.Do(ctx, "ZADD", "window", "NX", now, id)                                                        // want `redis Do ZADD` `access write ZADD record="redis zset window" keys=<"window"; id> dest=<> for-update=false appends=false added=true`
	rdb.ZRem(ctx, "window", id)                                                                         // want `redis ZRem ZREM` `access delete ZREM record="redis zset window" keys=<"window"; id>`
	rdb.Do(ctx, "ZSCORE", "window", id)                                                                 // want `redis Do ZSCORE` `access read ZSCORE record="redis zset window" keys=<"window"; id>`
	// Not a claim nor a plain add: an update of scores, and counts of
	// members changed.
	rdb.ZAddArgs(ctx, "window", redis.ZAddArgs{XX: true, Members: []redis.Z{{Score: now, Member: id}}})
	rdb.ZAddArgs(ctx, "window", redis.ZAddArgs{Ch: true, Members: []redis.Z{{Score: now, Member: id}}})
	rdb.Do(ctx, "ZADD", "window", "XX", now, id)
	_ = time.Second
}
