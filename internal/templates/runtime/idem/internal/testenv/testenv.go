// Package testenv connects tests to the real servers named by the environment. Tests read only
// IDEMKIT_TEST_REDIS_URL, IDEMKIT_TEST_REDIS_CLUSTER_ADDRS, IDEMKIT_TEST_VALKEY_URL and
// IDEMKIT_TEST_DATABASE_URL (scripts/testenv.sh starts local servers and prints them), so any
// Redis, Redis Cluster, Valkey or Postgres can be pointed at. Without a server a test skips —
// except under CI=true, where a missing server must fail the run rather than pass it empty.
package testenv

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The variables the store tests read.
const (
	RedisURL = "IDEMKIT_TEST_REDIS_URL"
	// RedisClusterAddrs lists a Redis Cluster's nodes as comma-separated host:port. The failover
	// tests stall its masters (DEBUG SLEEP) and promote its replicas, so point it only at a
	// cluster kept for tests.
	RedisClusterAddrs = "IDEMKIT_TEST_REDIS_CLUSTER_ADDRS"
	// ValkeyURL names a server whose SET takes IFEQ (Valkey 8.1 or later, Redis 8.4 or later),
	// where the Redis store completes a key without a script.
	ValkeyURL = "IDEMKIT_TEST_VALKEY_URL"
	// ValkeyServer is the path of that server's binary, for the tests that start servers of
	// their own (a master and its replica).
	ValkeyServer = "IDEMKIT_TEST_VALKEY_SERVER"
	DatabaseURL  = "IDEMKIT_TEST_DATABASE_URL"
)

// URL returns the server URL in the variable name, or skips the test (fails it under CI) when the
// variable is unset.
func URL(t testing.TB, name string) string {
	t.Helper()
	u := os.Getenv(name)
	if u == "" {
		missing(t, "%s is not set (run scripts/testenv.sh up, then eval \"$(scripts/testenv.sh env)\")", name)
	}
	return u
}

// Unreachable skips the test (fails it under CI) because the server in the variable name did not
// answer.
func Unreachable(t testing.TB, name string, err error) {
	t.Helper()
	missing(t, "server at %s unreachable: %v", name, err)
}

func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatalf(format+" (CI=true: a missing server fails the run)", args...)
		return
	}
	t.Skipf(format, args...)
}

// Name returns a name unique to this test run, usable as a Redis key prefix or a Postgres schema
// (lowercase, at most 63 bytes), so parallel tests and repeated runs never share data.
func Name(t testing.TB) string {
	var b strings.Builder
	b.WriteString("t_")
	for _, r := range strings.ToLower(t.Name()) {
		if b.Len() >= 40 {
			break
		}
		if 'a' <= r && r <= 'z' || '0' <= r && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	var random [6]byte
	_, _ = rand.Read(random[:])
	b.WriteByte('_')
	b.WriteString(hex.EncodeToString(random[:]))
	return b.String()
}
