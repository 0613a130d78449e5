package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

// clusterClient connects to the test Redis Cluster, or skips (fails under CI) when there is none;
// edit, if given, changes its options first. It waits until every slot is served.
func clusterClient(t testing.TB, edit ...func(*redis.ClusterOptions)) *redis.ClusterClient {
	t.Helper()
	opt := &redis.ClusterOptions{
		Addrs:    strings.Split(testenv.URL(t, testenv.RedisClusterAddrs), ","),
		PoolSize: 100, // the suite races 64 claims at once
	}
	for _, e := range edit {
		e(opt)
	}
	rdb := redis.NewClusterClient(opt)
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		testenv.Unreachable(t, testenv.RedisClusterAddrs, err)
	}
	waitHealthy(t, rdb)
	return rdb
}

// waitHealthy waits until every node says the cluster is ok, and each of three masters streams
// to its replica, as after a failover once the old master has come back as a replica. It asks
// every node in the variable itself, not through a client's cached view.
func waitHealthy(t testing.TB, rdb *redis.ClusterClient) {
	t.Helper()
	var nodes []*redis.Client
	for _, addr := range strings.Split(os.Getenv(testenv.RedisClusterAddrs), ",") {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		defer c.Close()
		nodes = append(nodes, c)
	}
	end := time.Now().Add(60 * time.Second)
	for {
		err := clusterHealth(context.Background(), nodes)
		if err == nil {
			rdb.ReloadState(context.Background())
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the cluster at %s is not healthy after a minute: %v", testenv.RedisClusterAddrs, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func clusterHealth(ctx context.Context, nodes []*redis.Client) error {
	masters := 0
	for _, c := range nodes {
		addr := c.Options().Addr
		info, err := c.ClusterInfo(ctx).Result()
		if err != nil {
			return err
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return fmt.Errorf("%s: cluster_state not ok", addr)
		}
		role, err := c.Do(ctx, "role").Slice()
		if err != nil {
			return err
		}
		if len(role) == 0 || role[0] != "master" {
			continue // a replica: its master answers for it
		}
		masters++
		id, err := c.Do(ctx, "cluster", "myid").Text()
		if err != nil {
			return err
		}
		replicas, err := c.Do(ctx, "cluster", "replicas", id).StringSlice()
		if err != nil {
			return err
		}
		if len(replicas) != 1 || strings.Contains(replicas[0], "fail") || !strings.Contains(replicas[0], "connected") {
			return fmt.Errorf("master %s has replicas %q, want one connected", addr, replicas)
		}
		// and streams to it: a master demoted by a failover first resyncs in full.
		repl, err := c.Info(ctx, "replication").Result()
		if err != nil {
			return err
		}
		if !strings.Contains(repl, "state=online") {
			return fmt.Errorf("master %s replicates to no replica online: %s", addr, repl)
		}
	}
	if masters != 3 {
		return fmt.Errorf("%d masters, want 3", masters)
	}
	return nil
}

// newClusterStore returns a Store on the cluster whose keys live under a prefix of the test's
// own, deleted from every master afterwards.
func newClusterStore(t testing.TB, rdb *redis.ClusterClient) (*redisstore.Store, string) {
	prefix := testenv.Name(t) + ":"
	t.Cleanup(func() {
		_ = rdb.ForEachMaster(context.Background(), func(ctx context.Context, c *redis.Client) error {
			iter := c.Scan(ctx, 0, prefix+"*", 1000).Iterator()
			for iter.Next(ctx) {
				c.Del(ctx, iter.Val())
			}
			return iter.Err()
		})
	})
	return redisstore.New(rdb, redisstore.Options{Prefix: prefix}), prefix
}

// TestClusterConformance runs the suite on the cluster, with the store as it is and with one that
// stages every completed record under a second key, which must be in the record's slot.
func TestClusterConformance(t *testing.T) {
	testenv.LockCluster(t, false)
	rdb := clusterClient(t)
	for name, edit := range completes {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) idem.Store {
				s, _ := newClusterStore(t, rdb)
				return edit(s)
			}, storetest.WithOutage(func(t testing.TB, dial storetest.DialFunc) idem.Store {
				linked := clusterClient(t, func(o *redis.ClusterOptions) { o.Dialer = dial })
				_, prefix := newClusterStore(t, rdb)
				return edit(redisstore.New(linked, redisstore.Options{Prefix: prefix}))
			}))
		})
	}
}

// TestClusterStagedKeys: a staged complete's two keys are in one slot whatever braces the
// record's key holds (otherwise the function fails with CROSSSLOT); a key whose braces leave no
// such stage key completes through the script.
func TestClusterStagedKeys(t *testing.T) {
	testenv.LockCluster(t, false)
	rdb := clusterClient(t)
	s, _ := newClusterStore(t, rdb)
	redisstore.StageAll(s)
	resp := idem.Response{Status: 201, Body: []byte(strings.Repeat("x", 4<<10))}
	for _, key := range []string{"plain", "{tenant}:k", "a{b}c{d}", "a{b", "a}b", "a{}b{c}", "a}b{c}"} {
		newKey(t, s, key, resp)
	}
}

// TestClusterSpreadsKeys: each record is a key of its own, hashed whole, so the records of one
// store spread over every master rather than piling into one slot.
func TestClusterSpreadsKeys(t *testing.T) {
	testenv.LockCluster(t, false)
	rdb := clusterClient(t)
	s, prefix := newClusterStore(t, rdb)
	for i := range 60 {
		if _, err := s.Claim(t.Context(), fmt.Sprint("key-", i), "fp", time.Minute, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	perMaster := map[string]int{}
	err := rdb.ForEachMaster(t.Context(), func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, prefix+"*").Result()
		mu.Lock()
		perMaster[c.Options().Addr] = len(keys)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for addr, n := range perMaster {
		total += n
		if n < 5 {
			t.Errorf("master %s holds %d of 60 records: they do not spread (%v)", addr, n, perMaster)
		}
	}
	if total != 60 {
		t.Errorf("masters hold %d records, want 60 (%v)", total, perMaster)
	}
}

// executions counts how often the work ran for each key.
type executions struct {
	mu   sync.Mutex
	runs map[string]int
}

func (e *executions) work(key string) idem.Func {
	return func(ctx context.Context) (idem.Response, error) {
		e.mu.Lock()
		e.runs[key]++
		e.mu.Unlock()
		time.Sleep(2 * time.Millisecond)
		return idem.Response{Status: 201, Body: []byte("done " + key)}, nil
	}
}

func (e *executions) count(key string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.runs[key]
}

// TestClusterFailover fails a master over twice while duplicate requests keep arriving:
//
//   - a manual failover (CLUSTER FAILOVER on its replica), which waits for the replica to catch
//     up, so the cluster stays healthy: no key may run twice, and every key completes;
//   - a stalled master (DEBUG SLEEP) until its replica takes over: while its slots have no master
//     every request fails closed, with ErrStoreUnavailable and without running the work, and
//     once the replica serves them each key runs once.
//
// It changes the cluster's topology, so it holds the cluster alone (no other test in this or
// another process uses it meanwhile), and waits for the cluster to be whole again before it ends.
func TestClusterFailover(t *testing.T) {
	testenv.LockCluster(t, true)
	rdb := clusterClient(t, func(o *redis.ClusterOptions) {
		o.ReadTimeout = 500 * time.Millisecond
		o.WriteTimeout = 500 * time.Millisecond
		o.DialTimeout = 500 * time.Millisecond
	})
	t.Cleanup(func() { waitHealthy(t, rdb) })
	s, prefix := newClusterStore(t, rdb)
	ctx := t.Context()

	t.Run("ManualFailover", func(t *testing.T) {
		const keys, workers = 30, 6
		ex := &executions{runs: map[string]int{}}
		k := &idem.Keeper{Store: s, Lease: 30 * time.Second, TTL: time.Hour}
		var (
			wg         sync.WaitGroup
			mu         sync.Mutex
			done       = map[string]bool{}
			failures   []error
			during     int // requests answered while the failover ran
			failedOver = make(chan struct{})
		)
		names := make([]string, keys)
		for i := range names {
			names[i] = fmt.Sprint("manual-", i)
		}
		deadline := time.Now().Add(30 * time.Second)
		// Each worker asks for every key until it has completed, over and over until the failover
		// is over, so that requests — new keys first, replays later — run all through it.
		for w := range workers {
			// Each worker walks the keys from its own starting point, so duplicates meet.
			mine := slices.Concat(names[w*5%keys:], names[:w*5%keys])
			wg.Go(func() {
				for round := 0; ; round++ {
					select {
					case <-failedOver:
						if round > 0 {
							return
						}
					default:
					}
					for _, key := range mine {
						for time.Now().Before(deadline) {
							res, err := k.Do(ctx, key, "fp", ex.work(key))
							mu.Lock()
							finished := err == nil && (res.Stored || res.Replayed)
							if finished {
								done[key] = true
							} else if err != nil && !errors.Is(err, idem.ErrInProgress) {
								failures = append(failures, err)
							}
							select {
							case <-failedOver:
							default:
								during++
							}
							mu.Unlock()
							if finished {
								break
							}
							time.Sleep(5 * time.Millisecond)
						}
					}
				}
			})
		}
		// A store that waits for replicas, on a client of its own that learns the slots now and
		// is idle during the failover.
		waiting := redisstore.New(clusterClient(t), redisstore.Options{Prefix: prefix + "wait:", Replicas: 1, ReplicaTimeout: time.Second})
		if _, err := waiting.Claim(ctx, "warm", "fp", time.Minute, time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the failover lands mid-run
		master, replica := masterOf(t, rdb, prefix+"manual-0")
		if err := replica.ClusterFailover(ctx).Err(); err != nil {
			t.Fatalf("CLUSTER FAILOVER on %s: %v", replica.Options().Addr, err)
		}
		waitRole(t, replica, "master")
		close(failedOver)
		wg.Wait()
		t.Logf("manual failover from %s to %s under %d requests; %d failed: %v", master.Options().Addr, replica.Options().Addr, during, len(failures), errors.Join(failures...))
		// The store that waits for replicas sends its writes to the master its client knew
		// before the failover; it must find the new one.
		for _, key := range names {
			end := time.Now().Add(15 * time.Second)
			for {
				c, err := waiting.Claim(ctx, key, "fp", time.Minute, time.Hour)
				if err == nil && c.Outcome == idem.Claimed {
					break
				}
				if time.Now().After(end) {
					t.Fatalf("a store with Replicas: 1 still fails to claim %s after the failover: %v, %v", key, c.Outcome, err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
		for _, key := range names {
			if n := ex.count(key); n > 1 {
				t.Errorf("key %s ran %d times across a manual failover", key, n)
			}
			if !done[key] {
				t.Errorf("key %s never completed (ran %d times)", key, ex.count(key))
			}
		}
		waitHealthy(t, rdb)
	})

	t.Run("StalledMaster", func(t *testing.T) {
		ex := &executions{runs: map[string]int{}}
		k := &idem.Keeper{Store: s, Lease: 2 * time.Second, TTL: time.Hour}
		key := "stalled"
		master, replica := masterOf(t, rdb, prefix+key)
		sleeper := redis.NewClient(&redis.Options{Addr: master.Options().Addr, ReadTimeout: 30 * time.Second})
		defer sleeper.Close()
		const stall = 8 // seconds: the replica takes over after the node timeout of 2 s
		slept := make(chan error, 1)
		go func() { slept <- sleeper.Do(context.Background(), "debug", "sleep", stall).Err() }()
		time.Sleep(200 * time.Millisecond)

		// Until the replica serves the slot, every request must fail closed.
		refused := 0
		for replicaRole(t, replica) != "master" {
			_, err := k.Do(ctx, key, "fp", ex.work(key))
			if err == nil {
				break // the replica was promoted between the role check and the request
			}
			if !errors.Is(err, idem.ErrStoreUnavailable) {
				t.Errorf("request while the slot has no master = %v, want ErrStoreUnavailable", err)
			}
			refused++
		}
		if refused == 0 {
			t.Fatal("no request was made while the slot had no master")
		}
		if n := ex.count(key); n > 0 {
			t.Errorf("the work ran %d times while its slot had no master", n)
		}
		ranWhileDown := ex.count(key)

		// The replica now serves the slot: the key runs once, then replays.
		end := time.Now().Add(30 * time.Second)
		var res idem.Result
		for {
			var err error
			res, err = k.Do(ctx, key, "fp", ex.work(key))
			if err == nil {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("after the failover the key still fails: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if again, err := k.Do(ctx, key, "fp", ex.work(key)); err != nil || !again.Replayed {
			t.Errorf("second request after the failover = %+v, %v; want a replay", again, err)
		}
		if n := ex.count(key); n != 1 {
			t.Errorf("the work ran %d times (%d while the slot had no master), want once after the failover (first result %+v)", n, ranWhileDown, res)
		}
		t.Logf("%d requests refused while %s stalled, until %s took over", refused, master.Options().Addr, replica.Options().Addr)
		if err := <-slept; err != nil {
			t.Logf("DEBUG SLEEP on the old master: %v", err)
		}
		waitHealthy(t, rdb)
	})
}

// masterOf returns clients for the master that serves key and for one of its replicas.
func masterOf(t *testing.T, rdb *redis.ClusterClient, key string) (master, replica *redis.Client) {
	t.Helper()
	ctx := t.Context()
	master, err := rdb.MasterForKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	id, err := master.Do(ctx, "cluster", "myid").Text()
	if err != nil {
		t.Fatal(err)
	}
	lines, err := master.Do(ctx, "cluster", "replicas", id).StringSlice()
	if err != nil || len(lines) == 0 {
		t.Fatalf("CLUSTER REPLICAS of %s = %v, %v; want a replica", master.Options().Addr, lines, err)
	}
	addr, _, _ := strings.Cut(strings.Fields(lines[0])[1], "@")
	replica = redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { replica.Close() })
	return master, replica
}

// replicaRole is what the node says it is: "master" or "slave".
func replicaRole(t *testing.T, c *redis.Client) string {
	t.Helper()
	role, err := c.Do(t.Context(), "role").Slice()
	if err != nil || len(role) == 0 {
		t.Fatalf("ROLE on %s = %v, %v", c.Options().Addr, role, err)
	}
	r, _ := role[0].(string)
	return r
}

func waitRole(t *testing.T, c *redis.Client, want string) {
	t.Helper()
	end := time.Now().Add(30 * time.Second)
	for replicaRole(t, c) != want {
		if time.Now().After(end) {
			t.Fatalf("%s is still not %s after 30 s", c.Options().Addr, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestClusterReplicasConformance: with every write waiting for its master's replica, the store
// still passes the suite.
func TestClusterReplicasConformance(t *testing.T) {
	testenv.LockCluster(t, false)
	rdb := clusterClient(t)
	for name, edit := range completes {
		t.Run(name, func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) idem.Store {
				_, prefix := newClusterStore(t, rdb)
				return edit(redisstore.New(rdb, redisstore.Options{Prefix: prefix, Replicas: 1, ReplicaTimeout: time.Second}))
			})
		})
	}
}

// BenchmarkClusterReplicas measures what Options.Replicas costs: new keys (Claim + Complete) on
// the cluster, each master with one replica, with WAIT 1 after every write against without, side
// by side. x-baseline is the throughput with WAIT as a fraction of without.
func BenchmarkClusterReplicas(b *testing.B) {
	testenv.LockCluster(b, false)
	rdb := clusterClient(b)
	resp := idem.Response{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: make([]byte, 1024)}
	ctx := context.Background()
	newKey := func(s *redisstore.Store, n *atomic.Int64) func() error {
		return func() error {
			key := fmt.Sprint(n.Add(1))
			c, err := s.Claim(ctx, key, "fp", time.Minute, time.Hour)
			if err != nil {
				return err
			}
			if c.Outcome != idem.Claimed {
				return fmt.Errorf("claim of a new key = %v", c.Outcome)
			}
			return s.Complete(ctx, key, c.Token, resp, time.Hour)
		}
	}
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("New/workers=%d", workers), func(b *testing.B) {
			_, prefix := newClusterStore(b, rdb)
			plain := redisstore.New(rdb, redisstore.Options{Prefix: prefix + "plain:"})
			waiting := redisstore.New(rdb, redisstore.Options{Prefix: prefix + "wait:", Replicas: 1, ReplicaTimeout: time.Second})
			var n atomic.Int64
			sideBySide(b, workers, newKey(waiting, &n), newKey(plain, &n))
		})
	}
}
