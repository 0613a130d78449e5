package lockcheck

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// ErrScored says a contribution event was already scored.
var ErrScored = errors.New("lockcheck: event already scored")

// ErrScoring says another consumer is scoring the event.
var ErrScoring = errors.New("lockcheck: event being scored")

// Scorer scores contribution events delivered at least once.
type Scorer struct {
	rdb      *redis.Client
	lockTTL  time.Duration
	scoreTTL time.Duration
}

func (s *Scorer) unlock(ctx context.Context, key, token string) {
	if v, _ := s.rdb.Get(ctx, key).Result(); v == token {
		s.rdb.Del(ctx, key)
	}
}

// Score checks whether the event was scored, takes a SET NX lock on it,
// scores it and marks it. The check is not repeated under the lock: a
// redelivery that checked before the mark and locks after the release
// scores the event again.
//
// corpus: bug checkthenact
// modelled on: gocasters/rankr leaderboardscoringapp/delivery/consumer/idempotencychecker.go (CheckEvent: EXISTS of the processed key, SetNX of a lock key with a token, the process callback, SET of the processed key)
func (s *Scorer) Score(ctx context.Context, eventID string, score func(context.Context) error) error {
	doneKey := fmt.Sprintf("score:done:%s", eventID)
	lockKey := fmt.Sprintf("score:lock:%s", eventID)
	n, err := s.rdb.Exists(ctx, doneKey).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		return ErrScored
	}
	token := uuid.NewString()
	ok, err := s.rdb.SetNX(ctx, lockKey, token, s.lockTTL).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrScoring
	}
	defer s.unlock(ctx, lockKey, token)
	if err := score(ctx); err != nil {
		return err
	}
	return s.rdb.Set(ctx, doneKey, 1, s.scoreTTL).Err()
}

// ScoreRechecked checks again once it holds the SET NX lock.
//
// corpus: ok checkthenact
// modelled on: gocasters/rankr leaderboardscoringapp/delivery/consumer/idempotencychecker.go (CheckEvent's EXISTS, SetNX lock and processed mark, with the EXISTS repeated under the lock)
func (s *Scorer) ScoreRechecked(ctx context.Context, eventID string, score func(context.Context) error) error {
	doneKey := fmt.Sprintf("score:done:%s", eventID)
	lockKey := fmt.Sprintf("score:lock:%s", eventID)
	seen, err := s.rdb.Exists(ctx, doneKey).Result()
	if err != nil {
		return err
	}
	if seen == 1 {
		return ErrScored
	}
	token := uuid.NewString()
	ok, err := s.rdb.SetNX(ctx, lockKey, token, s.lockTTL).Result()
	if err != nil {
		return err
	}
	if !ok {
		return ErrScoring
	}
	defer s.unlock(ctx, lockKey, token)
	n, err := s.rdb.Exists(ctx, doneKey).Result()
	if err != nil {
		return err
	}
	if n == 1 {
		return ErrScored
	}
	if err := score(ctx); err != nil {
		return err
	}
	return s.rdb.Set(ctx, doneKey, 1, s.scoreTTL).Err()
}
