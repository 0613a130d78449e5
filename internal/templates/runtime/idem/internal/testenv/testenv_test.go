package testenv

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

// recorder stands in for a test: it records whether the helper skipped or failed it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Skipf(format string, args ...any) {
	r.skipped = fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

func TestURL(t *testing.T) {
	for _, tc := range []struct {
		name, value, ci string
		wantURL         string
		skip, fail      bool
	}{
		{name: "set", value: "redis://x", wantURL: "redis://x"},
		{name: "set under CI", value: "redis://x", ci: "true", wantURL: "redis://x"},
		{name: "unset skips", skip: true},
		{name: "unset fails under CI", ci: "true", fail: true},
		{name: "unset skips when CI is false", ci: "false", skip: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("IDEMKIT_TEST_X", tc.value)
			t.Setenv("CI", tc.ci)
			r := &recorder{}
			got := URL(r, "IDEMKIT_TEST_X")
			if got != tc.wantURL || (r.skipped != "") != tc.skip || (r.failed != "") != tc.fail {
				t.Errorf("URL = %q, skipped %q, failed %q; want %q skip=%v fail=%v", got, r.skipped, r.failed, tc.wantURL, tc.skip, tc.fail)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	for _, ci := range []string{"", "true"} {
		t.Run("CI="+ci, func(t *testing.T) {
			t.Setenv("CI", ci)
			r := &recorder{}
			Unreachable(r, "IDEMKIT_TEST_X", fmt.Errorf("connection refused"))
			if got := r.failed != ""; got != (ci == "true") {
				t.Errorf("failed = %q, skipped = %q under CI=%q", r.failed, r.skipped, ci)
			}
			if r.skipped == "" && r.failed == "" {
				t.Error("neither skipped nor failed")
			}
		})
	}
}

func TestName(t *testing.T) {
	a, b := Name(t), Name(t)
	if a == b {
		t.Errorf("two calls gave the same name %q", a)
	}
	valid := regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)
	for _, n := range []string{a, Name(&named{TB: t, name: "Test/With Spaces/And-Ü/" + string(make([]byte, 200))})} {
		if !valid.MatchString(n) {
			t.Errorf("Name = %q: not a lowercase identifier of at most 63 bytes", n)
		}
	}
}

type named struct {
	testing.TB
	name string
}

func (n *named) Name() string { return n.name }

// TestLockCluster: an exclusive hold waits for a shared one to end, and shared holds do not wait
// for each other.
func TestLockCluster(t *testing.T) {
	t.Setenv(RedisClusterAddrs, "127.0.0.1:1,"+Name(t)) // a lock of this test's own
	first := &cleaner{TB: t}
	LockCluster(first, false)
	second := &cleaner{TB: t}
	LockCluster(second, false) // would block forever if shared holds excluded each other
	got := make(chan struct{})
	go func() {
		third := &cleaner{TB: t}
		LockCluster(third, true)
		close(got)
		third.cleanup()
	}()
	select {
	case <-got:
		t.Fatal("an exclusive lock was granted while shared ones were held")
	case <-time.After(100 * time.Millisecond):
	}
	first.cleanup()
	second.cleanup()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the exclusive lock was not granted after the shared ones ended")
	}
}

// cleaner runs the cleanups registered on it when told to, standing in for a test that ends.
type cleaner struct {
	testing.TB
	fns []func()
}

func (c *cleaner) Helper()           {}
func (c *cleaner) Cleanup(fn func()) { c.fns = append(c.fns, fn) }
func (c *cleaner) cleanup() {
	for _, fn := range c.fns {
		fn()
	}
}
