//go:build unix

package redisstore_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
)

// TestIfEqualReplicas: with Options.Replicas, the IFEQ complete waits for the replica in the
// same round trip, and a complete no replica acknowledged fails as the store being unavailable,
// as the script's does. The master and its replica are servers of the test's own (the binary
// in IDEMKIT_TEST_VALKEY_SERVER), since the replica is stopped (SIGSTOP, hence unix only).
func TestIfEqualReplicas(t *testing.T) {
	bin := testenv.URL(t, testenv.ValkeyServer)
	master := startServer(t, bin)
	replica := startServer(t, bin, "--replicaof", "127.0.0.1", strconv.Itoa(master.port))
	ctx := t.Context()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		info, _ := replica.rdb.Info(ctx, "replication").Result()
		if strings.Contains(info, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not sync with its master in 30s:\n%s", info)
		}
	}
	s := redisstore.New(master.rdb, redisstore.Options{Prefix: "p:", Replicas: 1, ReplicaTimeout: time.Second})
	resp := idem.Response{Status: 201, Body: []byte("created")}
	c, err := s.Claim(ctx, "k", "fp", time.Minute, time.Hour)
	if err != nil || c.Outcome != idem.Claimed {
		t.Fatalf("claim = %v, %v; want claimed", c.Outcome, err)
	}
	if err := s.Complete(ctx, "k", c.Token, resp, time.Hour); err != nil {
		t.Fatalf("complete with a replica to acknowledge it: %v", err)
	}
	if v, err := replica.rdb.Get(ctx, "p:k").Result(); err != nil || !strings.HasPrefix(v, "C") {
		t.Fatalf("the replica holds %.40q, %v; want the completed record", v, err)
	}
	if redisstore.IfEqualRefused(s) {
		t.Fatal("the store says the server refused IFEQ")
	}

	c, err = s.Claim(ctx, "k2", "fp", time.Minute, time.Hour)
	if err != nil || c.Outcome != idem.Claimed {
		t.Fatalf("claim = %v, %v; want claimed", c.Outcome, err)
	}
	if err := replica.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer replica.cmd.Process.Signal(syscall.SIGCONT)
	err = s.Complete(ctx, "k2", c.Token, resp, time.Hour)
	if !errors.Is(err, idem.ErrStoreUnavailable) || !strings.Contains(err.Error(), "0 of the 1 replicas") {
		t.Fatalf("complete the stopped replica did not acknowledge = %v, want ErrStoreUnavailable saying no replica acknowledged it", err)
	}
}

// server is a Redis-protocol server the test started, and a client of it.
type server struct {
	port int
	cmd  *exec.Cmd
	rdb  *redis.Client
}

// startServer starts bin (a valkey-server or redis-server) on a free loopback port, without
// persistence and with args added, and stops it when the test ends.
func startServer(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &server{port: l.Addr().(*net.TCPAddr).Port}
	l.Close()
	dir := t.TempDir()
	srv.cmd = exec.Command(bin, append([]string{"--bind", "127.0.0.1", "--port", strconv.Itoa(srv.port),
		"--dir", dir, "--save", "", "--appendonly", "no", "--logfile", filepath.Join(dir, "server.log")}, args...)...)
	if err := srv.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		srv.cmd.Process.Signal(syscall.SIGCONT)
		srv.cmd.Process.Kill()
		srv.cmd.Wait()
	})
	srv.rdb = redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(srv.port)})
	t.Cleanup(func() { srv.rdb.Close() })
	for deadline := time.Now().Add(10 * time.Second); srv.rdb.Ping(t.Context()).Err() != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			t.Fatalf("%s on port %d did not answer PING in 10s; its log:\n%s", bin, srv.port, log)
		}
	}
	return srv
}
