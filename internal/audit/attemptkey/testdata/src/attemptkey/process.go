package attemptkey

import (
	"context"
	"fmt"
	"log"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// instance names this process: the same for every delivery it handles,
// different on every replica and after a restart.
var instance = uuid.NewString()

func dedupByInstance(ctx context.Context, rdb *redis.Client, msgID string) error {
	return rdb.SetNX(ctx, "dedup:"+instance+":"+msgID, 1, time.Hour).Err() // want `idempotency key built from uuid.NewString \(the package variable instance\) at process.go:\d+, made once per process, reaches the Redis key of SetNX: a restart or another replica makes a different one`
}

// A lock owned by this instance: the value, not the key.
func lockByInstance(ctx context.Context, rdb *redis.Client, msgID string) error {
	return rdb.SetNX(ctx, "dedup:"+msgID, instance, time.Hour).Err()
}

// A prefix made on first use, once per process.
var dedupPrefix = sync.OnceValue(func() string {
	return "dedup:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
})

func dedupByPrefix(ctx context.Context, rdb *redis.Client, msgID string) error {
	return rdb.SetNX(ctx, dedupPrefix()+msgID, 1, time.Hour).Err() // want `built from time.Now \(the sync.OnceValue dedupPrefix\)`
}

// Deduper keeps its prefix from its construction.
type Deduper struct {
	rdb       *redis.Client
	prefix    string
	startedAt time.Time
}

func NewDeduper(rdb *redis.Client) *Deduper {
	return &Deduper{rdb: rdb, prefix: fmt.Sprintf("dedup:%d:", time.Now().Unix()), startedAt: time.Now()}
}

func (d *Deduper) key(msgID string) string { return d.prefix + msgID }

func (d *Deduper) Seen(ctx context.Context, msgID string) (bool, error) {
	ok, err := d.rdb.SetNX(ctx, d.key(msgID), 1, time.Hour).Result() // want `built from key \(time.Now \(prefix, set once\) at process.go:\d+\)`
	return !ok, err
}

func (d *Deduper) Uptime() time.Duration { return time.Since(d.startedAt) } // want Uptime:"returns time.Now \\(startedAt, set once\\) at process.go:\\d+; once per process"

// A fixed prefix.
type StableDeduper struct {
	rdb    *redis.Client
	prefix string
}

func NewStableDeduper(rdb *redis.Client) *StableDeduper {
	return &StableDeduper{rdb: rdb, prefix: "dedup:orders:"}
}

func (d *StableDeduper) Seen(ctx context.Context, msgID string) (bool, error) { // want Seen:"parameter 1 reaches the Redis key of SetNX"
	ok, err := d.rdb.SetNX(ctx, d.prefix+msgID, 1, time.Hour).Result()
	return !ok, err
}

// A handler closure that captures a prefix its constructor made.
func newHandler(rdb *redis.Client) func(ctx context.Context, m types.Message) error {
	prefix := fmt.Sprintf("dedup-%d-", time.Now().UnixNano())
	return func(ctx context.Context, m types.Message) error {
		return rdb.SetNX(ctx, prefix+*m.MessageId, 1, time.Hour).Err() // want `built from time.Now in newHandler at process.go:\d+, made once per process`
	}
}

// An order made once with a new ID, then keyed by it: the entity's ID.
type Order2 struct {
	ID string
}

func NewOrder2() *Order2 { return &Order2{ID: uuid.NewString()} } // want NewOrder2:"returns a record whose ID is uuid.NewString at process.go:\\d+"

func (o *Order2) DedupKey() string { return "dedup:" + o.ID }

func placeOrder(ctx context.Context, rdb *redis.Client) error {
	o := NewOrder2()
	if err := rdb.SetNX(ctx, "dedup:"+o.ID, 1, time.Hour).Err(); err != nil {
		return err
	}
	return rdb.SetNX(ctx, o.DedupKey(), 1, time.Hour).Err()
}

// A session's token, made with it and used as its key elsewhere: a field
// of the value passed in, not of the long-lived receiver.
type Session struct {
	Token string
}

func NewSession() *Session { return &Session{Token: uuid.NewString()} }

func storeSession(ctx context.Context, rdb *redis.Client) error {
	s := NewSession()
	return rdb.SetNX(ctx, "dedup:"+s.Token, 1, time.Hour).Err()
}

// A prefix made under a sync.Once, by a constructor that also logs what
// the keys look like.
type LazyDeduper struct {
	rdb    *redis.Client
	once   sync.Once
	prefix string
}

func (d *LazyDeduper) ensure() {
	d.once.Do(func() { d.prefix = "dedup:" + uuid.NewString() + ":" })
}

func (d *LazyDeduper) Claim(ctx context.Context, msgID string) error {
	d.ensure()
	return d.rdb.SetNX(ctx, d.prefix+msgID, 1, time.Hour).Err() // want `built from uuid.NewString \(prefix, set once\)`
}

type LoggedDeduper struct {
	rdb    *redis.Client
	prefix string
}

func NewLoggedDeduper(rdb *redis.Client) *LoggedDeduper {
	d := &LoggedDeduper{rdb: rdb}
	d.prefix = "dedup:" + strconv.FormatInt(time.Now().UnixNano(), 10)
	example := d.key("example")
	log.Printf("dedup keys look like %s", example)
	return d
}

func (d *LoggedDeduper) key(id string) string { return d.prefix + ":" + id }

func (d *LoggedDeduper) Claim(ctx context.Context, msgID string) error {
	return d.rdb.SetNX(ctx, d.key(msgID), 1, time.Hour).Err() // want `built from key \(time.Now \(prefix, set once\)`
}

// main makes the prefix and hands it to the constructor, which keeps it.
type Inbox2 struct {
	rdb    *redis.Client
	prefix string
}

func NewInbox2(rdb *redis.Client, prefix string) *Inbox2 {
	return &Inbox2{rdb: rdb, prefix: prefix}
}

func (in *Inbox2) Seen(ctx context.Context, msgID string) (bool, error) {
	ok, err := in.rdb.SetNX(ctx, in.prefix+msgID, 1, time.Hour).Result() // want `built from time.Now \(prefix, set once by NewInbox2\) at process.go:\d+, made once per process`
	return !ok, err
}

func main() {
	prefix := fmt.Sprintf("inbox-%d:", time.Now().Unix())
	NewInbox2(nil, prefix)
	NewStableInbox(nil, "inbox:")
}

// The same handed a constant.
type StableInbox struct {
	rdb    *redis.Client
	prefix string
}

func NewStableInbox(rdb *redis.Client, prefix string) *StableInbox {
	s := &StableInbox{rdb: rdb}
	s.prefix = prefix
	return s
}

func (in *StableInbox) Seen(ctx context.Context, msgID string) (bool, error) { // want Seen:"parameter 1 reaches the Redis key of SetNX"
	ok, err := in.rdb.SetNX(ctx, in.prefix+msgID, 1, time.Hour).Result()
	return !ok, err
}
