package scriptclaims

import (
	"context"

	redigo "github.com/gomodule/redigo/redis"
	"github.com/redis/rueidis"

	"scriptclaims/scripts"
)

func process(ctx context.Context, id string) error { return nil }

// Positive: a redigo script of package scripts, the work's failure
// leaving the job's key held.
func consumeRedigoKept(ctx context.Context, conn redigo.Conn, id string) error {
	won, err := redigo.Int(scripts.RedigoClaim.Do(conn, "job:"+id, "processing", 300))
	if err != nil {
		return err
	}
	if won == 0 {
		return nil
	}
	if err := process(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SET NX at clients.go:\d+ held`
	}
	return nil
}

// Negative: the same, deleting the key on the failure.
func consumeRedigoKeptReleased(ctx context.Context, conn redigo.Conn, id string) error {
	won, err := redigo.Int(scripts.RedigoClaim.Do(conn, "job:"+id, "processing", 300))
	if err != nil || won == 0 {
		return err
	}
	if err := process(ctx, id); err != nil {
		conn.Do("DEL", "job:"+id)
		return err
	}
	return nil
}

// Positive: a rueidis script of package scripts.
func consumeRueidisKept(ctx context.Context, client rueidis.Client, id string) error {
	key := "evt:" + id
	n, err := scripts.RueidisClaim.Exec(ctx, client, []string{key}, []string{"processing"}).AsInt64()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := process(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by SET NX at clients.go:\d+ held`
	}
	return nil
}

// Negative: the same, deleting the key on the failure.
func consumeRueidisKeptReleased(ctx context.Context, client rueidis.Client, id string) error {
	key := "evt:" + id
	n, err := scripts.RueidisClaim.Exec(ctx, client, []string{key}, []string{"processing"}).AsInt64()
	if err != nil || n == 0 {
		return err
	}
	if err := process(ctx, id); err != nil {
		client.Do(ctx, client.B().Del().Key(key).Build())
		return err
	}
	return nil
}
