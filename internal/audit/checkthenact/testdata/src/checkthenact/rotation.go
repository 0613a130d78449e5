package checkthenact

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// sessions rotates refresh tokens: the cache maps a token to its user.
type sessions struct {
	db  *sql.DB
	rdb *redis.Client
}

// issue makes a new refresh token for user and stores it: the token it
// returns is the new row's, not anything it was given.
func (s *sessions) issue(ctx context.Context, user int) (string, error) {
	tok := uuid.NewString()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO refresh_tokens (token, user_id) VALUES ($1, $2)`, tok, user); err != nil {
		return "", err
	}
	return tok, nil
}

// refresh looks the old token up and caches the one it issues in its
// place: the key it writes is the new token, made by issue, so it is not
// the key it read, however the user's ID it was issued for was found.
func (s *sessions) refresh(ctx context.Context, old string) (string, error) {
	if id, err := s.rdb.Get(ctx, "refresh:"+old).Result(); err == nil {
		user, _ := strconv.Atoi(id)
		return s.issue(ctx, user)
	}
	user, err := strconv.Atoi(old[:4])
	if err != nil {
		return "", err
	}
	tok, err := s.issue(ctx, user)
	if err != nil {
		return "", err
	}
	s.rdb.Set(ctx, "refresh:"+tok, strconv.Itoa(user), 24*time.Hour)
	return tok, nil
}

// markOnce is the bug refresh is not: the key written after the work is
// built from what the check read, through a function that stores
// nothing.
func (s *sessions) markOnce(ctx context.Context, old string) error {
	if n, _ := s.rdb.Exists(ctx, "used:"+old).Result(); n > 0 {
		return nil
	}
	user, err := strconv.Atoi(old[:4])
	if err != nil {
		return err
	}
	if _, err := s.issue(ctx, user); err != nil {
		return err
	}
	tok := canonical(old)
	s.rdb.Set(ctx, "used:"+tok, 1, 24*time.Hour) // want `SET of "used:" \+ tok after the EXISTS`
	return nil
}

func canonical(tok string) string { return tok[4:] }
