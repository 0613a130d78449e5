package idemhttp_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/internal/testenv"
)

// holderEnv tells a re-executed test binary to act as the holder process: "backend name".
const holderEnv = "IDEMKIT_TEST_HOLDER"

// holderLease is the lease the killed holder took; the retry may take over once it has run out.
const holderLease = time.Second

// TestHolderProcess is the holder of TestKilledHolder, run in a process of its own: it claims the
// key, says so, and hangs until it is killed. Run directly it does nothing.
func TestHolderProcess(t *testing.T) {
	spec := os.Getenv(holderEnv)
	if spec == "" {
		t.Skip("runs only as TestKilledHolder's child process")
	}
	backend, name, _ := strings.Cut(spec, " ")
	s := realStores(name)[backend](t)
	k := &idem.Keeper{Store: s, Lease: holderLease}
	k.Do(context.Background(), "k", "fp", func(context.Context) (idem.Response, error) {
		os.Stdout.WriteString("holding\n")
		select {} // until SIGKILL: no release, no complete, no heartbeat after death
	})
	t.Fatal("the holder was not holding")
}

// TestKilledHolder: a process holding a claim is killed with SIGKILL. Until its lease runs out
// retries are refused as in progress; after it, a retry takes the key over and runs once.
func TestKilledHolder(t *testing.T) {
	t.Parallel()
	if os.Getenv(holderEnv) != "" {
		t.Skip("inside the holder process")
	}
	name := testenv.Name(t)
	for backend, newStore := range realStores(name) {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestHolderProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), holderEnv+"="+backend+" "+name)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(out).ReadString('\n'); line != "holding\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("holder said %q, %v", line, err)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			var runs atomic.Int32
			work := func(context.Context) (idem.Response, error) {
				runs.Add(1)
				return idem.Response{Status: 201, Body: []byte("after the crash")}, nil
			}
			k := &idem.Keeper{Store: s, Lease: holderLease}
			deadline := time.Now().Add(15 * time.Second)
			for {
				res, err := k.Do(t.Context(), "k", "fp", work)
				if err == nil {
					if !res.TakenOver || !res.Stored || runs.Load() != 1 {
						t.Errorf("retry after the crash = %+v with %d runs; want taken over, stored, one run", res, runs.Load())
					}
					return
				}
				var busy *idem.InProgressError
				if !errors.As(err, &busy) {
					t.Fatalf("retry while the dead holder's lease runs = %v, want in progress", err)
				}
				if busy.RetryAfter > holderLease {
					t.Fatalf("retry after %v is longer than the holder's lease %v", busy.RetryAfter, holderLease)
				}
				if time.Now().After(deadline) {
					t.Fatal("the dead holder's key was never taken over")
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
