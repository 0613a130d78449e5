package releaseonerror

import (
	"context"
	"log"
	"time"

	"github.com/redis/go-redis/v9"
)

// The goroutine given the claim marks it done on success and returns on
// a failure with the key held.
func goLeaks(ctx context.Context, rdb *redis.Client, msg string) {
	key := "msg:" + msg
	ok, _ := rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if !ok {
		return
	}
	go func() {
		if err := send(ctx, msg); err != nil {
			log.Print(err)
			return // want `this error return leaves the key claimed by SetNX at goroutine.go:\d+ held`
		}
		rdb.Set(ctx, key, "done", 0)
	}()
}

// The goroutine deletes the key on a failure.
func goReleases(ctx context.Context, rdb *redis.Client, msg string) {
	key := "msg:" + msg
	ok, _ := rdb.SetNX(ctx, key, "processing", time.Hour).Result()
	if !ok {
		return
	}
	go func() {
		if err := send(ctx, msg); err != nil {
			rdb.Del(ctx, key)
			return
		}
		rdb.Set(ctx, key, "done", 0)
	}()
}

type worker struct{ rdb *redis.Client }

// The method the goroutine runs completes the key and returns on a
// failure with it held.
func (s *worker) start(ctx context.Context, id string) error {
	ok, err := s.rdb.SetNX(ctx, "job:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	go s.work(ctx, id) // want `the goroutine started here returns on a failure at goroutine.go:\d+ and so leaves the key claimed by SetNX at goroutine.go:\d+ held`
	return nil
}

func (s *worker) work(ctx context.Context, id string) {
	if err := send(ctx, id); err != nil {
		log.Print(err)
		return
	}
	s.rdb.Set(ctx, "job:"+id, "done", 0)
}

// This one defers the release on a failure.
func (s *worker) startSafe(ctx context.Context, id string) error {
	ok, err := s.rdb.SetNX(ctx, "job:"+id, "processing", time.Hour).Result()
	if err != nil || !ok {
		return err
	}
	go s.workSafe(ctx, id)
	return nil
}

func (s *worker) workSafe(ctx context.Context, id string) {
	if err := send(ctx, id); err != nil {
		s.rdb.Del(context.WithoutCancel(ctx), "job:"+id)
		return
	}
	s.rdb.Set(ctx, "job:"+id, "done", 0)
}
