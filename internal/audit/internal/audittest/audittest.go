// Package audittest sets up analysistest runs of idemkit's checks.
//
// The checks recognise real libraries by import path, so their test
// packages import minimal copies of those libraries' signatures: SQL
// (pgx v4 and v5, sqlx, gorm, bun, squirrel, goqu, and ent with a
// package it generated, example.com/shop/ent), Redis (go-redis v8 and
// v9, redigo, rueidis, redislock, redsync), in-memory caches (go-cache,
// golang-lru v2; go-redis v9's sorted sets too), documents (MongoDB's driver v1
// and v2, DynamoDB), fresh values (google and gofrs
// uuid, ulid, ksuid, xid), retries (backoff, retry-go), queues and clients
// (SQS, NATS, river, asynq, resty, gRPC metadata), gin, singleflight and
// stripe-go. The
// copies live once, in this package's testdata, and Dir joins them with
// the calling package's own testdata in one GOPATH tree.
package audittest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns a GOPATH-style tree for analysistest.Run: the library copies
// and ./testdata/src of the test's package, copied into a temporary
// directory. Golden files for suggested fixes travel with their sources.
func Dir(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("audittest: cannot locate the library copies")
	}
	dir := t.TempDir()
	for _, src := range []string{filepath.Join(filepath.Dir(file), "testdata"), "testdata"} {
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatalf("audittest: %v", err)
		}
	}
	return dir
}
