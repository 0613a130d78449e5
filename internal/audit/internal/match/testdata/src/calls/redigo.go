package calls

import (
	"context"

	"github.com/gomodule/redigo/redis"
)

func redigoCalls(ctx context.Context, pool *redis.Pool, cc redis.ConnWithContext, id string) {
	conn := pool.Get()
	defer conn.Close()
	redis.String(conn.Do("GET", "idem:"+id))                          // want `access read GET record="redis idem:\{\}" keys=<"idem:" \+ id> dest=<> for-update=false appends=false added=false pipelined=false`
	redis.Bool(conn.Do("EXISTS", "idem:"+id))                         // want `access read EXISTS record="redis idem:\{\}"`
	conn.Do("SET", "idem:"+id, "done", "EX", 3600)                    // want `access write SET record="redis idem:\{\}" keys=<"idem:" \+ id>`
	redis.String(conn.Do("SET", "idem:"+id, 1, "NX", "EX", 60))       // want `access claim SET NX record="redis idem:\{\}"`
	conn.Do("SETNX", "lock:"+id, 1)                                   // want `access claim SET NX record="redis lock:\{\}"`
	conn.Do("HSET", "payout:"+id, "status", "done")                   // want `access write HSET record="redis hash payout:\{\} status" keys=<"payout:" \+ id; "status"> dest=<> for-update=false appends=false added=true`
	redis.Int(conn.Do("SADD", "seen", id))                            // want `access write SADD record="redis set seen" keys=<"seen"; id> .* added=true`
	conn.Do("SET", "mode:"+id, "NX")                                  // want `access write SET record="redis mode:\{\}"`
	conn.Do("DEL", "idem:"+id)                                        // want `access delete DEL record="redis idem:\{\}"`
	cc.DoContext(ctx, "SISMEMBER", "seen", id)                        // want `access read SISMEMBER record="redis set seen" keys=<"seen"; id>`
	redis.DoContext(conn, ctx, "HSETNX", "idem:"+id, "status", "run") // want `access claim HSETNX record="redis hash idem:\{\} status"`
	conn.Send("INCR", "n:"+id)                                        // want `access write INCR record="redis n:\{\}" .* appends=true added=true pipelined=true`
	conn.Flush()
	conn.Receive()
}

func redigoWatch(pool *redis.Pool, other redis.Conn, key string) error {
	conn := pool.Get()
	conn.Do("GET", key) // want `access read GET .* watch=false`
	if _, err := conn.Do("WATCH", key); err != nil {
		return err
	}
	if _, err := redis.String(conn.Do("GET", key)); err == nil { // want `access read GET .* pipelined=false watch=true`
		conn.Do("UNWATCH")
		return nil
	}
	other.Do("GET", key) // want `access read GET .* watch=false`
	conn.Send("MULTI")
	conn.Send("SET", key, 1) // want `access write SET .* pipelined=true watch=true`
	if _, err := conn.Do("EXEC"); err != nil {
		return err
	}
	conn.Do("DEL", key) // want `access delete DEL .* watch=false`
	return nil
}

// client has redigo's Do and is not redigo.
type client struct{}

func (client) Do(cmd string, args ...interface{}) (interface{}, error) { return nil, nil }

func redigoLookAlikes(conn redis.Conn, c client, cmd, id string, args []interface{}) {
	c.Do("SET", "idem:"+id, 1)
	conn.Do(cmd, "idem:"+id)
	conn.Do("SET", "idem:"+id, 1, "XX")
	conn.Do("PING")
	conn.Do("DEL", args...)
	conn.Do("GET")
}
