package releaseonerror

import (
	"context"
	"errors"
	"fmt"

	redigo "github.com/gomodule/redigo/redis"
)

// A redigo SET NX: its reply, wrapped by redis.String, is nil when the key
// was taken before.
func exportLocked(ctx context.Context, pool *redigo.Pool, account string) error {
	conn := pool.Get()
	defer conn.Close()
	key := "export:" + account
	if _, err := redigo.String(conn.Do("SET", key, "1", "NX", "EX", 3600)); err != nil {
		if errors.Is(err, redigo.ErrNil) {
			return errBusy
		}
		return err
	}
	if err := send(ctx, account); err != nil {
		return fmt.Errorf("export: %w", err) // want `this error return leaves the key claimed by SET NX at redigo.go:17 held: .* defer a DEL of the key`
	}
	_, err := conn.Do("DEL", key)
	return err
}

// Negative: the DEL runs before the failure is returned.
func exportReleasing(ctx context.Context, pool *redigo.Pool, account string) error {
	conn := pool.Get()
	defer conn.Close()
	key := "export:" + account
	if _, err := redigo.String(conn.Do("SET", key, "1", "NX", "EX", 3600)); err != nil {
		return errBusy
	}
	if err := send(ctx, account); err != nil {
		conn.Do("DEL", key)
		return err
	}
	_, err := conn.Do("DEL", key)
	return err
}

var unlockScript = redigo.NewScript(1, `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// A token-guarded lock given back by a deferred compare-and-delete script.
func digestUnlocking(ctx context.Context, pool *redigo.Pool, day, token string) error {
	conn := pool.Get()
	defer conn.Close()
	key := "digest-lock:" + day
	if _, err := redigo.String(conn.Do("SET", key, token, "NX", "PX", 60000)); err != nil {
		return err
	}
	defer unlockScript.Do(conn, key, token)
	if err := send(ctx, day); err != nil {
		return fmt.Errorf("digest %s: %w", day, err)
	}
	return nil
}

// The script run on another key gives nothing back.
func digestUnlockingOther(ctx context.Context, pool *redigo.Pool, day, token string) error {
	conn := pool.Get()
	defer conn.Close()
	key := "digest-lock:" + day
	if _, err := redigo.String(conn.Do("SET", key, token, "NX", "PX", 60000)); err != nil {
		return err
	}
	defer unlockScript.Do(conn, "digest-lock:yesterday", token)
	if err := send(ctx, day); err != nil {
		return fmt.Errorf("digest %s: %w", day, err) // want `this error return leaves the key claimed by SET NX at redigo.go:\d+ held`
	}
	return nil
}
