package releaseonerror

import (
	"context"
	"fmt"
	"time"

	"example.com/shop/idem"
	"example.com/shop/keys"
)

func work(ctx context.Context) (idem.Response, error) { return idem.Response{}, nil }

func runClaimed(ctx context.Context, store idem.Store, key, fp string) error {
	c, err := store.Claim(ctx, key, fp, 30*time.Second, 24*time.Hour)
	if err != nil {
		return err
	}
	if !c.Held() {
		return &idem.InProgressError{Key: key, RetryAfter: c.RetryAfter}
	}
	resp, err := work(ctx)
	if err != nil {
		return err // want `this error return leaves the key claimed by Claim at directive.go:15 held: every retry is refused as in progress until its TTL or lease runs out; defer Release right after the claim, or call it before returning the error; or let the runtime's Do hold the key, which cannot forget \(releaseonerror\)`
	}
	return store.Complete(ctx, key, c.Token, resp, 24*time.Hour)
}

func runJob(ctx context.Context, id string) error {
	ok, err := keys.Claim(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		return fmt.Errorf("job %s: %w", id, err) // want `claimed by Claim at directive.go:30 held: .* defer keys.Release right after the claim`
	}
	return keys.Release(ctx, id)
}

// Negatives.

// Keeper.Do's shape: the outcomes that take nothing answer at once, and the
// held claim is handed to the code that runs the work.
func dispatch(ctx context.Context, store idem.Store, key, fp string) (idem.Result, error) {
	c, err := store.Claim(ctx, key, fp, 30*time.Second, 24*time.Hour)
	if err != nil {
		return idem.Result{}, err
	}
	switch c.Outcome {
	case idem.Claimed, idem.TakenOver:
		return runHeld(ctx, store, key, c)
	case idem.Replay:
		return idem.Result{Response: c.Record.Response, Replayed: true}, nil
	case idem.InProgress:
		return idem.Result{}, &idem.InProgressError{Key: key, RetryAfter: c.RetryAfter}
	}
	return idem.Result{}, fmt.Errorf("claim %q: unknown outcome %v", key, c.Outcome)
}

func runHeld(ctx context.Context, store idem.Store, key string, c idem.Claim) (idem.Result, error) {
	resp, err := work(ctx)
	if err != nil {
		return idem.Result{}, store.Release(context.WithoutCancel(ctx), key, c.Token)
	}
	return idem.Result{Response: resp, Stored: true}, store.Complete(ctx, key, c.Token, resp, time.Hour)
}

func runClaimedDeferred(ctx context.Context, store idem.Store, key, fp string) (err error) {
	c, err := store.Claim(ctx, key, fp, 30*time.Second, 24*time.Hour)
	if err != nil {
		return err
	}
	if !c.Held() {
		return &idem.InProgressError{Key: key, RetryAfter: c.RetryAfter}
	}
	defer func() {
		if err != nil {
			store.Release(context.WithoutCancel(ctx), key, c.Token)
		}
	}()
	resp, err := work(ctx)
	if err != nil {
		return err
	}
	return store.Complete(ctx, key, c.Token, resp, 24*time.Hour)
}

func runJobReleasing(ctx context.Context, id string) error {
	ok, err := keys.Claim(ctx, id)
	if err != nil || !ok {
		return err
	}
	if err := send(ctx, id); err != nil {
		return keys.Release(ctx, id)
	}
	return keys.Done(ctx, id, []byte(`{"sent":true}`))
}

// The runtime's Do claims, completes and releases: nothing to forget.
func viaDo(ctx context.Context, store idem.Store, key, fp string) error {
	_, err := idem.Do(ctx, store, key, fp, work)
	return err
}

// An annotated claim helper's own body is how the claim is made.
//
//idemkit:claim
func claimLocal(ctx context.Context, store idem.Store, key string) (idem.Claim, error) {
	c, err := store.Claim(ctx, key, "fp", time.Minute, time.Hour)
	if err != nil {
		return idem.Claim{}, err
	}
	if err := ctx.Err(); err != nil {
		return idem.Claim{}, err
	}
	return c, nil
}

// The claim's own error, returned unchecked: nil, or nothing was taken.
func probe(ctx context.Context, store idem.Store, key string) error {
	_, err := store.Claim(ctx, key, "fp", time.Minute, time.Minute)
	return err
}

// claimAndSend answers a bool beside its error on every path: true with
// an error is still a failing return, and must be read without tripping
// on the constant's kind.
func claimAndSend(ctx context.Context, id string) (bool, error) {
	ok, err := keys.Claim(ctx, id)
	if err != nil || !ok {
		return false, err
	}
	if err := send(ctx, id); err != nil {
		return true, err // want `claimed by Claim at directive.go:\d+ held`
	}
	return true, keys.Release(ctx, id)
}

// claimQuietly answers a note and whether the send went out; after a
// failed send it answers something ("", true), so the return is not the
// empty answer of a swallowed failure, and reading it must not trip on
// the bool constant.
func claimQuietly(ctx context.Context, id string) (string, bool, error) {
	ok, err := keys.Claim(ctx, id)
	if err != nil || !ok {
		return "", false, err
	}
	if err := send(ctx, id); err != nil {
		return "", true, nil
	}
	return "sent", true, keys.Release(ctx, id)
}
