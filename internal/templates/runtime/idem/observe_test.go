package idem_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// events is what a store's hooks heard.
type events struct {
	mu        sync.Mutex
	claims    []string
	takeovers []idem.Takeover
	calls     map[idem.Op]int
	failed    map[idem.Op]int // calls whose error matched ErrStoreUnavailable
}

func (e *events) hooks() idem.Hooks {
	e.calls, e.failed = map[idem.Op]int{}, map[idem.Op]int{}
	return idem.Hooks{
		OnClaim: func(_ context.Context, key string, o idem.Outcome) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.claims = append(e.claims, key+" "+o.String())
		},
		OnTakeover: func(_ context.Context, t idem.Takeover) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.takeovers = append(e.takeovers, t)
		},
		OnCall: func(_ context.Context, op idem.Op, took time.Duration, err error) {
			e.mu.Lock()
			defer e.mu.Unlock()
			if took < 0 {
				panic(fmt.Sprintf("%s took %v", op, took))
			}
			e.calls[op]++
			if errors.Is(err, idem.ErrStoreUnavailable) {
				e.failed[op]++
			}
		},
	}
}

// TestObserveConformance: an observed store keeps every guarantee of the store it wraps.
func TestObserveConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) idem.Store {
		return idem.Observe(newMemory(t), (&events{}).hooks())
	})
}

// TestObserve: each outcome, takeover, call and store failure reaches its hook.
func TestObserve(t *testing.T) {
	t.Parallel()
	now := time.Now()
	mem := idem.NewMemoryStore(idem.MemoryOptions{Now: func() time.Time { return now }})
	down := fmt.Errorf("claim: %w: connection refused", idem.ErrStoreUnavailable)
	broken := false
	s := &faulty{Store: mem, claim: func(ctx context.Context, key, fp string, lease, ttl time.Duration) (idem.Claim, error) {
		if broken {
			return idem.Claim{}, down
		}
		return mem.Claim(ctx, key, fp, lease, ttl)
	}}
	var e events
	k := &idem.Keeper{Store: idem.Observe(s, e.hooks()), Lease: time.Second}
	ctx := t.Context()

	k.Do(ctx, "a", "fp", respond(201, "a"))    // claimed, completed
	k.Do(ctx, "a", "fp", respond(201, "a"))    // replay
	k.Do(ctx, "a", "other", respond(201, "a")) // mismatch
	k.Do(ctx, "b", "fp", respond(500, "boom")) // claimed, released
	held, _ := mem.Claim(ctx, "c", "fp", time.Second, time.Hour)
	k.Do(ctx, "c", "fp", respond(201, "c")) // in progress
	now = now.Add(2 * time.Second)          // c's holder crashed
	k.Do(ctx, "c", "fp", respond(201, "c")) // taken over, completed
	broken = true
	k.Do(ctx, "d", "fp", mustNotRun(t)) // store down

	want := []string{"a claimed", "a replay", "a mismatch", "b claimed", "c in_progress", "c taken_over"}
	if !reflect.DeepEqual(e.claims, want) {
		t.Errorf("OnClaim heard %q, want %q", e.claims, want)
	}
	if len(e.takeovers) != 1 || e.takeovers[0].Key != "c" || e.takeovers[0].Previous != held.Token || e.takeovers[0].Token == "" {
		t.Errorf("OnTakeover heard %+v, want c taken from %q", e.takeovers, held.Token)
	}
	wantCalls := map[idem.Op]int{idem.OpClaim: 7, idem.OpComplete: 2, idem.OpRelease: 1}
	if !reflect.DeepEqual(e.calls, wantCalls) {
		t.Errorf("OnCall heard %v, want %v", e.calls, wantCalls)
	}
	if !reflect.DeepEqual(e.failed, map[idem.Op]int{idem.OpClaim: 1}) {
		t.Errorf("OnCall heard store failures %v, want the one claim", e.failed)
	}
}
