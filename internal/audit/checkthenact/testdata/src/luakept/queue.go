package luakept

import (
	"context"
	"embed"
	"fmt"

	"github.com/redis/go-redis/v9"
)

//go:embed queue/*.lua
var queueLua embed.FS

// loadLua reads a script by name, or says why it cannot.
func loadLua(name string) (string, error) {
	b, err := queueLua.ReadFile(fmt.Sprintf("queue/%s.lua", name))
	if err != nil {
		return "", fmt.Errorf("script %s: %w", name, err)
	}
	return string(b), nil
}

const uniqueName = "unique"

var uniqueCmd, seenCmd *redis.Script

func init() {
	src, err := loadLua(uniqueName)
	if err != nil {
		panic(err)
	}
	uniqueCmd = redis.NewScript(src)
	src, err = loadLua("seen")
	if err != nil {
		panic(err)
	}
	seenCmd = redis.NewScript(src)
}

// Enqueuer publishes tasks once per uniqueness key.
type Enqueuer struct {
	rdb *redis.Client
	gw  Gateway
}

// EnqueueUnique takes the uniqueness key with the EXISTS-then-SET script
// before publishing: one step.
func (e *Enqueuer) EnqueueUnique(ctx context.Context, id string) error {
	n, err := uniqueCmd.Run(ctx, e.rdb, []string{"unique:" + id}, id, 3600).Int()
	if err != nil || n == 0 {
		return err
	}
	return e.gw.Charge(ctx, id)
}

// EnqueueSeen checks the key in Go and marks it with the SET script after
// publishing.
func (e *Enqueuer) EnqueueSeen(ctx context.Context, id string) error {
	key := "unique:" + id
	if n, err := e.rdb.Exists(ctx, key).Result(); err != nil || n > 0 {
		return err
	}
	if err := e.gw.Charge(ctx, id); err != nil {
		return err
	}
	return seenCmd.Run(ctx, e.rdb, []string{key}, id, 3600).Err() // want `SET of key after the EXISTS at queue.go:\d+ races`
}
