package calls

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Key formats held in unexported package variables, as a constant block
// would hold them: each key's shape is its own format.
var (
	keyFailedLogin   = "auth:login:failed:%s"
	keyAccountLocked = "auth:login:locked:%s"
	keyPrefix        = "idem:"
	KeyExported      = "exported:%s" // any package may assign it: its shape is unknown
	keyComputed      = fmt.Sprint("computed:") + "%s"
)

func redisKeyVars(ctx context.Context, rdb *redis.Client, email, id string) {
	rdb.Incr(ctx, fmt.Sprintf(keyFailedLogin, email))     // want `redis Incr` `access .* record="redis auth:login:failed:\{\}"`
	rdb.Exists(ctx, fmt.Sprintf(keyAccountLocked, email)) // want `redis Exists EXISTS` `access read EXISTS record="redis auth:login:locked:\{\}"`
	lock := fmt.Sprintf(keyAccountLocked, email)          // the same shape through a local
	rdb.Set(ctx, lock, true, time.Minute)                 // want `redis Set SET` `access write SET record="redis auth:login:locked:\{\}"`
	rdb.SetNX(ctx, keyPrefix+id, 1, time.Minute)          // want `redis SetNX SET` `access claim SET NX record="redis idem:\{\}"`
	rdb.Get(ctx, fmt.Sprintf(KeyExported, id))            // want `redis Get GET` `access read GET record="redis \{\}"`
	rdb.Get(ctx, fmt.Sprintf(keyComputed, id))            // want `redis Get GET` `access read GET record="redis \{\}"`
}
