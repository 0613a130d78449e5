package calls

import (
	"context"
	"time"

	"github.com/redis/rueidis"
	"github.com/redis/rueidis/rueidiscompat"
)

func rueidisCalls(ctx context.Context, client rueidis.Client, compat rueidiscompat.Cmdable, id string) {
	client.Do(ctx, client.B().Get().Key("idem:"+id).Build())                                              // want `access read GET record="redis idem:\{\}" keys=<"idem:" \+ id> dest=<> for-update=false appends=false added=false pipelined=false watch=false`
	client.DoCache(ctx, client.B().Get().Key("idem:"+id).Cache(), time.Minute)                            // want `access read GET record="redis idem:\{\}"`
	client.Do(ctx, client.B().Exists().Key("idem:"+id).Build())                                           // want `access read EXISTS record="redis idem:\{\}"`
	client.Do(ctx, client.B().Set().Key("idem:"+id).Value("done").Build())                                // want `access write SET record="redis idem:\{\}" keys=<"idem:" \+ id>`
	client.Do(ctx, client.B().Set().Key("idem:"+id).Value("run").Nx().ExSeconds(60).Build())              // want `access claim SET NX record="redis idem:\{\}"`
	client.Do(ctx, client.B().Hset().Key("payout:"+id).FieldValue().FieldValue("status", "done").Build()) // want `access write HSET record="redis hash payout:\{\} status" keys=<"payout:" \+ id; "status"> dest=<> for-update=false appends=false added=true`
	client.Do(ctx, client.B().Hsetnx().Key("idem:"+id).Field("status").Value("run").Build())              // want `access claim HSETNX record="redis hash idem:\{\} status" keys=<"idem:" \+ id; "status">`
	client.Do(ctx, client.B().Hget().Key("idem:"+id).Field("status").Build())                             // want `access read HGET record="redis hash idem:\{\} status"`
	client.Do(ctx, client.B().Sadd().Key("seen").Member(id).Build())                                      // want `access write SADD record="redis set seen" keys=<"seen"; id> .* added=true`
	client.Do(ctx, client.B().Del().Key("idem:"+id).Build())                                              // want `access delete DEL record="redis idem:\{\}"`
	claim := client.B().Set().Key("lock:" + id).Value("1").Nx().Build()
	client.Do(ctx, claim)                       // want `access claim SET NX record="redis lock:\{\}"`
	compat.SetNX(ctx, "idem:"+id, 1, time.Hour) // want `redis SetNX SET NX` `access claim SET NX record="redis idem:\{\}"`
	compat.Get(ctx, "idem:"+id)                 // want `redis Get GET` `access read GET`
}

func rueidisLookAlikes(ctx context.Context, client rueidis.Client, cmd rueidis.Completed, id string) {
	client.Do(ctx, client.B().Set().Key("idem:"+id).Value("run").Xx().Build())
	client.Do(ctx, cmd)
	built := client.B().Get().Key("idem:" + id).Build()
	built = cmd
	client.Do(ctx, built)
}
