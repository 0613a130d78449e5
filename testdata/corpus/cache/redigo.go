package cache

import (
	"context"
	"errors"
	"fmt"

	"github.com/gomodule/redigo/redis"
)

// ReferralService pays referral bonuses; it keeps its markers in Redis
// through a redigo pool.
type ReferralService struct {
	pool   *redis.Pool
	ledger Ledger
}

// PayReferral pays the referrer once per referred user.
//
// corpus: bug checkthenact
// modelled on: distributed-infras/messenger prototype/redis/main.go (redigo conn.Do GET and SET on the same key)
func (r *ReferralService) PayReferral(ctx context.Context, referrer, referred string, cents int64) error {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "referral:paid:" + referred
	_, err = redis.String(conn.Do("GET", key))
	if err == nil {
		return ErrDuplicate
	}
	if !errors.Is(err, redis.ErrNil) {
		return err
	}
	if err := r.ledger.Credit(ctx, referrer, cents, "referral "+referred); err != nil {
		return err
	}
	_, err = conn.Do("SET", key, referrer, "EX", 90*24*3600)
	return err
}

// BadgeService awards one-off badges.
type BadgeService struct {
	pool     *redis.Pool
	notifier Notifier
}

// AwardBadge awards a badge and tells the user, once per badge.
//
// corpus: bug checkthenact
// modelled on: denkhaus/go-store set.go (redigo SADD and membership helpers on a pooled conn)
func (s *BadgeService) AwardBadge(ctx context.Context, userID, badge string) error {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "badges:" + userID
	has, err := redis.Bool(conn.Do("SISMEMBER", key, badge))
	if err != nil {
		return err
	}
	if has {
		return nil
	}
	if err := s.notifier.Notify(ctx, userID, "badge-awarded", map[string]string{"badge": badge}); err != nil {
		return err
	}
	_, err = conn.Do("SADD", key, badge)
	return err
}

// PayReferralNX claims the referred user with SET ... NX EX; a nil reply
// means someone claimed it first.
//
// corpus: ok checkthenact
// modelled on: distributed-infras/messenger prototype/redis/main.go (redigo conn.Do SET, here with NX and EX)
func (r *ReferralService) PayReferralNX(ctx context.Context, referrer, referred string, cents int64) error {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "referral:paid:" + referred
	_, err = redis.String(conn.Do("SET", key, referrer, "NX", "EX", 90*24*3600))
	if errors.Is(err, redis.ErrNil) {
		return ErrDuplicate
	}
	if err != nil {
		return err
	}
	if err := r.ledger.Credit(ctx, referrer, cents, "referral "+referred); err != nil {
		conn.Do("DEL", key)
		return err
	}
	return nil
}

// AwardBadgeSAdd lets SADD's reply decide who tells the user.
//
// corpus: ok checkthenact
// modelled on: denkhaus/go-store set.go (SetSet returning redis.Int of the SADD reply)
func (s *BadgeService) AwardBadgeSAdd(ctx context.Context, userID, badge string) error {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "badges:" + userID
	added, err := redis.Int(conn.Do("SADD", key, badge))
	if err != nil {
		return err
	}
	if added == 0 {
		return nil
	}
	if err := s.notifier.Notify(ctx, userID, "badge-awarded", map[string]string{"badge": badge}); err != nil {
		conn.Do("SREM", key, badge)
		return err
	}
	return nil
}

// ExportService builds account exports on request.
type ExportService struct {
	pool  *redis.Pool
	build func(ctx context.Context, account string) error
}

// StartExport builds an account's export while holding a redigo SET NX lock,
// so two clicks on "export" do not build it twice.
//
// corpus: bug releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (lock by SetNX with an expiry, a separate unlock)
func (e *ExportService) StartExport(ctx context.Context, account string) error {
	conn, err := e.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "export:lock:" + account
	if _, err := redis.String(conn.Do("SET", key, "1", "NX", "EX", 3600)); err != nil {
		if errors.Is(err, redis.ErrNil) {
			return ErrInProgress
		}
		return err
	}
	if err := e.build(ctx, account); err != nil {
		return fmt.Errorf("build export: %w", err)
	}
	_, err = conn.Do("DEL", key)
	return err
}

// StartExportDeferred is StartExport with the DEL deferred right after the
// lock is taken.
//
// corpus: ok releaseonerror
// modelled on: hc6078/Distributed-Locking lock.go (lock by SetNX with an expiry, unlock by the holder)
func (e *ExportService) StartExportDeferred(ctx context.Context, account string) error {
	conn, err := e.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "export:lock:" + account
	if _, err := redis.String(conn.Do("SET", key, "1", "NX", "EX", 3600)); err != nil {
		if errors.Is(err, redis.ErrNil) {
			return ErrInProgress
		}
		return err
	}
	defer conn.Do("DEL", key)

	if err := e.build(ctx, account); err != nil {
		return fmt.Errorf("build export: %w", err)
	}
	return nil
}

// ConsumeVoucher marks a voucher used under WATCH/MULTI/EXEC: a nil EXEC
// reply means the key changed after the WATCH and nothing was written, so
// only one caller gets past EXEC to apply the voucher.
//
// corpus: ok checkthenact
// modelled on: LinFengMing/liwenzhou_go_web_advanced_course main.go (Watch, Get, then the Set in a transaction that fails if the key changed)
func (r *ReferralService) ConsumeVoucher(ctx context.Context, voucher, account string, cents int64) error {
	conn, err := r.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	key := "voucher:used:" + voucher
	if _, err := conn.Do("WATCH", key); err != nil {
		return err
	}
	used, err := redis.String(conn.Do("GET", key))
	if err == nil {
		conn.Do("UNWATCH")
		return fmt.Errorf("voucher used by %s: %w", used, ErrDuplicate)
	}
	if !errors.Is(err, redis.ErrNil) {
		conn.Do("UNWATCH")
		return err
	}
	conn.Send("MULTI")
	conn.Send("SET", key, account)
	reply, err := conn.Do("EXEC")
	if err != nil {
		return err
	}
	if reply == nil {
		return ErrDuplicate
	}
	if err := r.ledger.Credit(ctx, account, cents, "voucher "+voucher); err != nil {
		conn.Do("DEL", key)
		return err
	}
	return nil
}

// ReportService renders reports that clients poll for by request ID.
type ReportService struct {
	pool   *redis.Pool
	render func(ctx context.Context, spec string) (string, error)
}

// Render claims the request ID and renders the report, but on success it
// writes nothing back: the claim says "processing" until it expires, and a
// retry of a finished request is told to wait instead of getting the URL.
//
// corpus: bug cacheresponse
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (Mark before the handler, StoreResult after it)
func (s *ReportService) Render(ctx context.Context, requestID, spec string) (string, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()

	key := "report:req:" + requestID
	if _, err := redis.String(conn.Do("SET", key, "processing", "NX", "EX", 3600)); err != nil {
		if errors.Is(err, redis.ErrNil) {
			return "", ErrInProgress
		}
		return "", err
	}
	url, err := s.render(ctx, spec)
	if err != nil {
		conn.Do("DEL", key)
		return "", err
	}
	return url, nil
}

// RenderStored writes the report's URL under the request ID, and a retry
// gets the URL back.
//
// corpus: ok cacheresponse
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (StoreResult after the handler, GetResult for duplicates)
func (s *ReportService) RenderStored(ctx context.Context, requestID, spec string) (string, error) {
	conn, err := s.pool.GetContext(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()

	key := "report:req:" + requestID
	if _, err := redis.String(conn.Do("SET", key, "processing", "NX", "EX", 3600)); err != nil {
		if !errors.Is(err, redis.ErrNil) {
			return "", err
		}
		stored, err := redis.String(conn.Do("GET", key))
		if err != nil {
			return "", err
		}
		if stored == "processing" {
			return "", ErrInProgress
		}
		return stored, nil
	}
	url, err := s.render(ctx, spec)
	if err != nil {
		conn.Do("DEL", key)
		return "", err
	}
	conn.Do("SET", key, url, "EX", 7*24*3600)
	return url, nil
}
