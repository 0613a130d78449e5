package idemhttp_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/idemhttp"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/pgstore"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/redisstore"
)

// cable is a loopback TCP proxy in front of a real server that the test can unplug: every open
// connection is cut and new ones are refused until it is plugged back in. It makes an outage of
// the store without stopping the server other tests share.
type cable struct {
	upstream string
	ln       net.Listener
	mu       sync.Mutex
	down     bool
	conns    map[net.Conn]bool
}

func newCable(t *testing.T, upstream string) *cable {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &cable{upstream: upstream, ln: ln, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { ln.Close(); c.unplug() })
	go c.serve()
	return c
}

func (c *cable) addr() string { return c.ln.Addr().String() }

func (c *cable) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.pipe(in)
	}
}

func (c *cable) pipe(in net.Conn) {
	out, err := net.Dial("tcp", c.upstream)
	c.mu.Lock()
	if err != nil || c.down {
		c.mu.Unlock()
		in.Close()
		if out != nil {
			out.Close()
		}
		return
	}
	c.conns[in], c.conns[out] = true, true
	c.mu.Unlock()
	go func() { io.Copy(out, in); out.Close() }()
	io.Copy(in, out)
	in.Close()
}

func (c *cable) unplug() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = true
	for conn := range c.conns {
		conn.Close()
	}
	clear(c.conns)
}

func (c *cable) plug() {
	c.mu.Lock()
	c.down = false
	c.mu.Unlock()
}

// TestStoreOutage: the store drops out mid-run. While it is gone every request answers 503 and
// no handler runs without a claim; once it is back, service resumes and earlier results replay.
func TestStoreOutage(t *testing.T) {
	t.Parallel()
	name := testenv.Name(t)
	for backend, connect := range map[string]func(t *testing.T) (idem.Store, *cable){
		"redis": func(t *testing.T) (idem.Store, *cable) {
			opt, err := redis.ParseURL(testenv.URL(t, testenv.RedisURL))
			if err != nil {
				t.Fatal(err)
			}
			c := newCable(t, opt.Addr)
			opt.Addr = c.addr()
			opt.MaxRetries = -1
			rdb := redis.NewClient(opt)
			t.Cleanup(func() { rdb.Close() })
			if err := rdb.Ping(t.Context()).Err(); err != nil {
				testenv.Unreachable(t, testenv.RedisURL, err)
			}
			return redisstore.New(rdb, redisstore.Options{Prefix: name + ":"}), c
		},
		"postgres": func(t *testing.T) (idem.Store, *cable) {
			cfg, err := pgxpool.ParseConfig(testenv.URL(t, testenv.DatabaseURL))
			if err != nil {
				t.Fatal(err)
			}
			upstream := net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))
			c := newCable(t, upstream)
			host, port, _ := net.SplitHostPort(c.addr())
			p, _ := strconv.Atoi(port)
			cfg.ConnConfig.Host, cfg.ConnConfig.Port = host, uint16(p)
			cfg.ConnConfig.ConnectTimeout = 2 * time.Second
			pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			if err := pool.Ping(t.Context()); err != nil {
				testenv.Unreachable(t, testenv.DatabaseURL, err)
			}
			t.Cleanup(func() {
				pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
			})
			s := pgstore.New(pool, pgstore.Options{Schema: name})
			if err := s.Migrate(t.Context()); err != nil {
				t.Fatal(err)
			}
			return s, c
		},
	} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			store, c := connect(t)
			var runs atomic.Int32
			mw, err := idemhttp.New(idemhttp.Options{Keeper: &idem.Keeper{Store: store}, Unscoped: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			f := &fixture{handler: mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				runs.Add(1)
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte("made " + r.Header.Get(idemhttp.HeaderKey)))
			}))}
			if w := f.do(request{key: "before"}); w.Code != http.StatusCreated {
				t.Fatalf("before the outage: %d %s", w.Code, w.Body)
			}

			c.unplug()
			for i := range 20 {
				problem(t, f.do(request{key: "during-" + strconv.Itoa(i%4)}), http.StatusServiceUnavailable, "store-unavailable")
			}
			if n := runs.Load(); n != 1 {
				t.Fatalf("%d handler runs during the outage, want none", n-1)
			}

			c.plug()
			deadline := time.Now().Add(15 * time.Second)
			for {
				w := f.do(request{key: "during-0"})
				if w.Code == http.StatusCreated {
					break
				}
				if w.Code != http.StatusServiceUnavailable || time.Now().After(deadline) {
					t.Fatalf("after the outage: %d %s", w.Code, w.Body)
				}
				time.Sleep(50 * time.Millisecond) // the client reconnects on its own schedule
			}
			if w := f.do(request{key: "before"}); w.Header().Get(idemhttp.HeaderReplayed) != "true" || w.Body.String() != "made before" {
				t.Errorf("the result from before the outage = %d %q, want its replay", w.Code, w.Body)
			}
			if n := runs.Load(); n != 2 {
				t.Errorf("%d handler runs, want 2: one before the outage, one after", n)
			}
		})
	}
}
