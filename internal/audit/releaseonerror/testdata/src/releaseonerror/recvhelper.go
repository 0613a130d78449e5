package releaseonerror

import (
	"context"
	"errors"
)

// cooldowns hands out a short claim per user, released by token.
type cooldowns interface {
	TryClaim(ctx context.Context, userID string) (ok bool, token string, err error)
	Release(ctx context.Context, userID, token string) error
}

type resend struct {
	claims cooldowns
	userID string
	send   func(ctx context.Context) error
	rotate func(ctx context.Context) error
}

var errWait = errors.New("wait before asking again")

// releaseClaim gives the user's claim back; the key is the receiver's.
func (u *resend) releaseClaim(ctx context.Context, token string) {
	if token == "" {
		return
	}
	_ = u.claims.Release(ctx, u.userID, token)
}

// run releases through the helper on every failure: the helper's
// Release is of the same receiver's user.
func (u *resend) run(ctx context.Context) error {
	ok, token, err := u.claims.TryClaim(ctx, u.userID)
	if err != nil {
		return err
	}
	if !ok {
		return errWait
	}
	if err := u.rotate(ctx); err != nil {
		u.releaseClaim(ctx, token)
		return err
	}
	if err := u.send(ctx); err != nil {
		u.releaseClaim(ctx, token)
		return err
	}
	return nil
}

type resendTwo struct {
	claims  cooldowns
	userID  string
	adminID string
	send    func(ctx context.Context) error
}

// releaseAdmin gives back the admin's claim, not the user's.
func (u *resendTwo) releaseAdmin(ctx context.Context, token string) {
	_ = u.claims.Release(ctx, u.adminID, token)
}

// run claims for the user and, on failure, releases the admin's key:
// the user's stays held.
func (u *resendTwo) run(ctx context.Context) error {
	ok, token, err := u.claims.TryClaim(ctx, u.userID)
	if err != nil {
		return err
	}
	if !ok {
		return errWait
	}
	if err := u.send(ctx); err != nil {
		u.releaseAdmin(ctx, token)
		return err // want `leaves the key claimed by TryClaim`
	}
	return nil
}

type userMsg struct{ UserID string }

// releaseFor gives back the claim of the user its message names: the key
// is its parameter's, matched where it is called, not the receiver's.
func (u *resendTwo) releaseFor(ctx context.Context, m userMsg, token string) {
	_ = u.claims.Release(ctx, m.UserID, token)
}

// runFor claims for msg's user and, on failure, releases another
// message's user: msg's claim stays held.
func (u *resendTwo) runFor(ctx context.Context, msg, other userMsg) error {
	ok, token, err := u.claims.TryClaim(ctx, msg.UserID)
	if err != nil {
		return err
	}
	if !ok {
		return errWait
	}
	if err := u.send(ctx); err != nil {
		u.releaseFor(ctx, other, token)
		return err // want `leaves the key claimed by TryClaim`
	}
	return nil
}
