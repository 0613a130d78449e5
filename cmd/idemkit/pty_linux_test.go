package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// silentLimit bounds a command run on a terminal that never answers.
// termenv waits five seconds (termenv.OSCTimeout) for an answer to its
// background query, so a command that asks takes at least that long; the
// commands here take tens of milliseconds (audit a few hundred) when they
// do not ask. Four seconds tells the two apart without flaking on a busy
// machine.
const silentLimit = 4 * time.Second

// Terminal queries termenv writes: the background colour (OSC 11) and the
// cursor position (DSR), the second to learn quickly that the terminal
// answers nothing.
var queries = [][]byte{[]byte("\x1b]11;?"), []byte("\x1b[6n")}

// TestSilentTerminal runs the built idemkit on a pseudo-terminal with
// nothing behind it, the way script(1), some CI runners and editors'
// shells run it, and checks that no command queries the terminal: no query
// bytes in what it writes, and done long before termenv's five-second
// wait. rules NAME renders with glamour, whose colours depend on TERM, so
// it also shows that TERM reaches the commands intact.
func TestSilentTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "idemkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod := t.TempDir()
	writeFile(t, filepath.Join(mod, "go.mod"), "module example.com/tiny\n\ngo 1.22\n")
	writeFile(t, filepath.Join(mod, "tiny.go"), "// Package tiny has nothing to find.\npackage tiny\n\n// F does nothing.\nfunc F() {}\n")
	if err := os.Mkdir(filepath.Join(mod, "specs"), 0o755); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		args []string
		want []byte // in the output
	}{
		{args: []string{"version"}, want: []byte("idemkit ")},
		{args: []string{"--help"}, want: []byte("Usage:")},
		{args: []string{"audit", "--help"}, want: []byte("Usage:")},
		{args: []string{"rules"}, want: []byte("checkthenact")},
		// 38;5 is a 256-colour foreground: TERM=xterm-256color came through.
		{args: []string{"rules", "checkthenact"}, want: []byte("\x1b[38;5;")},
		{args: []string{"specs", "specs"}, want: nil},
		{args: []string{"audit", "./..."}, want: nil},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			out, elapsed, err := runOnSilentTerminal(t, mod, bin, tc.args...)
			if err != nil {
				t.Fatalf("idemkit %q on a silent terminal: %v after %v\n%q", tc.args, err, elapsed, out)
			}
			for _, q := range queries {
				if bytes.Contains(out, q) {
					t.Errorf("idemkit %q queried the terminal (%q) and took %v:\n%q", tc.args, q, elapsed, out)
				}
			}
			if tc.want != nil && !bytes.Contains(out, tc.want) {
				t.Errorf("idemkit %q wrote %q, want it to contain %q", tc.args, out, tc.want)
			}
		})
	}
}

// runOnSilentTerminal runs bin with args in dir on a new pseudo-terminal
// (standard input, output and error, and the controlling terminal of a new
// session, so termenv sees a foreground terminal) that nobody answers, and
// returns everything written to it. It fails when the command takes
// silentLimit or longer.
func runOnSilentTerminal(t *testing.T, dir, bin string, args ...string) ([]byte, time.Duration, error) {
	t.Helper()
	master, tty := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), silentLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLORTERM=", "CI=", "NO_COLOR=",
		"GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}

	var out bytes.Buffer
	var wg sync.WaitGroup
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	tty.Close()
	wg.Go(func() {
		// Reads until every end of the terminal is closed (EIO).
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	})
	err := cmd.Wait()
	elapsed := time.Since(start)
	wg.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("still running after %v (killed): %w", silentLimit, err)
	}
	return out.Bytes(), elapsed, err
}

// openPTY opens a pseudo-terminal pair of 80x24 cells.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Fatalf("pty number: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	size := struct{ rows, cols, x, y uint16 }{rows: 24, cols: 80}
	if err := ioctl(tty, syscall.TIOCSWINSZ, unsafe.Pointer(&size)); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	return master, tty
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFormOnTerminal runs idemkit design on a pseudo-terminal that answers
// like a terminal emulator, and checks that the interactive form still
// renders there (TERM reaches it: quietstart put it back) and that Ctrl-C
// leaves it with nothing written. The form may ask for the background
// colour, once, as it starts.
func TestFormOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "idemkit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	master, tty := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "design", "charge-card")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "CI=", "NO_COLOR=", "ACCESSIBLE=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()

	var out bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() {
		buf := make([]byte, 4096)
		answered, interrupted := 0, false
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			// Answer each background query as a light terminal would,
			// with the cursor position that tells termenv it is done.
			for ; answered < bytes.Count(out.Bytes(), queries[0]); answered++ {
				master.WriteString("\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[1;1R")
			}
			if !interrupted && bytes.Contains(out.Bytes(), []byte("Operation")) {
				master.WriteString("\x03")
				interrupted = true
			}
			if err != nil {
				return
			}
		}
	})
	err := cmd.Wait()
	wg.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("idemkit design on a terminal, interrupted: %v, want exit status 130\n%q", err, out.Bytes())
	}
	// 38;5 is a 256-colour foreground: the form styled itself for
	// TERM=xterm-256color, not for the dumb terminal of start-up.
	for _, want := range []string{"Operation", "\x1b[38;5;", "Nothing written."} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("the form's output lacks %q:\n%q", want, out.Bytes())
		}
	}
	if n := bytes.Count(out.Bytes(), queries[0]); n > 1 {
		t.Errorf("the form asked for the background %d times, want at most once", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("an interrupted design wrote %d files", len(entries))
	}
}
