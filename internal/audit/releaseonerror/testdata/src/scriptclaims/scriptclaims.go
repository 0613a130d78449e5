// Package scriptclaims claims keys with the Lua scripts of package
// scripts: run directly, given to a helper, or wrapped with the client.
package scriptclaims

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"scriptclaims/scripts"
)

var errBusy = errors.New("busy")

type worker struct {
	rdb     *redis.Client
	claim   *script
	release *script
}

// script keeps a go-redis script with the client it runs on.
type script struct {
	rdb *redis.Client
	s   *redis.Script
}

func newScript(rdb *redis.Client, src string) *script {
	return &script{rdb: rdb, s: redis.NewScript(src)}
}

func (s *script) Run(ctx context.Context, keys []string, args ...any) *redis.Cmd {
	return s.s.Run(ctx, s.rdb, keys, args...)
}

func newWorker(rdb *redis.Client) *worker {
	return &worker{rdb: rdb, claim: newScript(rdb, scripts.ClaimLua), release: newScript(rdb, scripts.ReleaseLua)}
}

// runScript runs the script its caller gives it.
func (w *worker) runScript(ctx context.Context, s *redis.Script, keys []string, args ...any) (int, error) {
	return s.Run(ctx, w.rdb, keys, args...).Int()
}

func (w *worker) charge(ctx context.Context, id string) error { return nil }

// unlock gives the key back with the other package's release script.
func (w *worker) unlock(ctx context.Context, key, token string) {
	scripts.Release.Run(context.WithoutCancel(ctx), w.rdb, []string{key}, token)
}

// direct claims with the other package's script and forgets the key when
// the charge fails.
func (w *worker) direct(ctx context.Context, id, token string) error {
	key := "pay:" + id
	won, err := scripts.Claim.Run(ctx, w.rdb, []string{key}, token, 60000).Int()
	if err != nil || won == 0 {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Run at scriptclaims.go:56 held`
	}
	return nil
}

// directReleased gives the key back with the other package's
// compare-and-delete.
func (w *worker) directReleased(ctx context.Context, id, token string) error {
	key := "pay:" + id
	won, err := scripts.Claim.Run(ctx, w.rdb, []string{key}, token, 60000).Int()
	if err != nil || won == 0 {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		scripts.Release.Run(context.WithoutCancel(ctx), w.rdb, []string{key}, token)
		return err
	}
	return nil
}

// directUnlocked gives it back through a function of the package that
// runs the release script.
func (w *worker) directUnlocked(ctx context.Context, id, token string) error {
	key := "pay:" + id
	won, err := scripts.Claim.Run(ctx, w.rdb, []string{key}, token, 60000).Int()
	if err != nil || won == 0 {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		w.unlock(ctx, key, token)
		return err
	}
	return nil
}

// helper claims through runScript, given the claim script.
func (w *worker) helper(ctx context.Context, id, token string) error {
	key := "pay:" + id
	won, err := w.runScript(ctx, scripts.Claim, []string{key}, token, 60000)
	if err != nil || won == 0 {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by runScript at scriptclaims.go:99 held`
	}
	return nil
}

// helperReleased gives the key back through runScript too.
func (w *worker) helperReleased(ctx context.Context, id, token string) error {
	key := "pay:" + id
	won, err := w.runScript(ctx, scripts.Claim, []string{key}, token, 60000)
	if err != nil || won == 0 {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		w.runScript(context.WithoutCancel(ctx), scripts.Release, []string{key}, token)
		return err
	}
	return nil
}

// wrapped claims with the wrapper's claim script, whose SET NX hands
// back nil when the key is held.
func (w *worker) wrapped(ctx context.Context, id, token string) (err error) {
	key := "pay:" + id
	if err := w.claim.Run(ctx, []string{key}, token, 60000).Err(); errors.Is(err, redis.Nil) {
		return errBusy
	} else if err != nil {
		return err
	}
	if err := w.charge(ctx, id); err != nil {
		return err // want `this error return leaves the key claimed by Run at scriptclaims.go:127 held`
	}
	return nil
}

// wrappedReleased defers the wrapper's release.
func (w *worker) wrappedReleased(ctx context.Context, id, token string) error {
	key := "pay:" + id
	if err := w.claim.Run(ctx, []string{key}, token, 60000).Err(); errors.Is(err, redis.Nil) {
		return errBusy
	} else if err != nil {
		return err
	}
	defer w.release.Run(context.WithoutCancel(ctx), []string{key}, token)
	return w.charge(ctx, id)
}

// limited counts with the other package's INCR script: no claim.
func (w *worker) limited(ctx context.Context, id string) error {
	n, err := scripts.Limit.Run(ctx, w.rdb, []string{"pay:" + id}, 60).Int()
	if err != nil {
		return err
	}
	if n > 10 {
		return errBusy
	}
	return w.charge(ctx, id)
}

var errDuplicateTask = errors.New("task already queued")

// enqueueUnique answers a duplicate when the script found the lock taken
// (-1): that key is another caller's, and this one holds nothing to give
// back. Modelled on hibiken/asynq internal/rdb/rdb.go (EnqueueUnique).
func (w *worker) enqueueUnique(ctx context.Context, id, token string) error {
	n, err := w.runScript(ctx, scripts.EnqueueUnique, []string{"unique:" + id, "task:" + id, "pending"}, token, 60)
	if err != nil {
		return err
	}
	if n == -1 {
		return errDuplicateTask
	}
	return nil
}
