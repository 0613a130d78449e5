//go:build unix

package testenv

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// LockCluster serialises the tests that share the cluster in RedisClusterAddrs across test
// processes — go test runs packages in parallel, and a generated copy of these tests may run
// beside them: shared for a test that only uses the cluster, exclusive for one that fails its
// masters over. The lock is held until the test and its subtests end.
func LockCluster(t testing.TB, exclusive bool) {
	t.Helper()
	h := fnv.New64a()
	h.Write([]byte(os.Getenv(RedisClusterAddrs)))
	path := filepath.Join(os.TempDir(), fmt.Sprintf("idemkit-test-cluster-%x.lock", h.Sum64()))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("lock the test cluster: %v", err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		t.Fatalf("lock the test cluster through %s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}
