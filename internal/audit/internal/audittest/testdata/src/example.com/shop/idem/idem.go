// Package idem is a minimal copy of the signatures of idemkit's reference
// runtime (internal/templates/runtime/idem) as `idemkit generate runtime`
// writes it into a user's module, directives included.
package idem

import (
	"context"
	"net/http"
	"time"
)

type Store interface {
	//idemkit:claim
	Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (Claim, error)

	//idemkit:complete
	Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error

	//idemkit:release
	Release(ctx context.Context, key, token string) error

	Extend(ctx context.Context, key, token string, lease time.Duration) error
	Get(ctx context.Context, key string) (Record, error)
}

type State uint8

const (
	StateInProgress State = iota + 1
	StateCompleted
)

type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

type Record struct {
	Key          string
	Fingerprint  string
	State        State
	LeaseExpires time.Time
	Expires      time.Time
	Response     Response
}

type Outcome uint8

const (
	Claimed Outcome = iota + 1
	TakenOver
	Replay
	InProgress
	Mismatch
)

type Claim struct {
	Outcome    Outcome
	Token      string
	Record     Record
	RetryAfter time.Duration
}

func (c Claim) Held() bool { return c.Outcome == Claimed || c.Outcome == TakenOver }

type InProgressError struct {
	Key        string
	RetryAfter time.Duration
}

func (e *InProgressError) Error() string { return "in progress" }

type Func func(ctx context.Context) (Response, error)

type Result struct {
	Response  Response
	Replayed  bool
	TakenOver bool
	Stored    bool
}

func Do(ctx context.Context, s Store, key, fingerprint string, fn Func) (Result, error) {
	return Result{}, nil
}

type Keeper struct {
	Store     Store
	Lease     time.Duration
	TTL       time.Duration
	Cacheable func(Response) bool
}

func (k *Keeper) Do(ctx context.Context, key, fingerprint string, fn Func) (Result, error) {
	return Result{}, nil
}

func (k *Keeper) Caches(r Response) bool { return r.Status < 500 }
