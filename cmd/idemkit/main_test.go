package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/cmd/idemkit/internal/quietstart"
	"github.com/idemkit/idemkit/internal/audit"
)

func TestMain(m *testing.M) {
	// The tests run in a process that initialised quietstart but not
	// main: put TERM back for them and for what they start.
	quietstart.Restore()
	testscript.Main(m, map[string]func(){"idemkit": main})
}

// TestScripts runs the real binary through testdata/script/*.txtar, the
// way the go command tests itself: every command, its output and its exit
// status, as a user sees them.
func TestScripts(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join(root, "testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("IDEMKIT_ROOT", root)
			// idemkit audit runs go list: give it the real caches (HOME is
			// /no-home in a script) and nothing from the network.
			goEnv, err := goEnvOnce()
			if err != nil {
				return err
			}
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOWORK", "off")
			return nil
		},
		// [analyzer:NAME] holds when NAME is in the suite, so that scripts
		// assert on a check's findings as soon as it lands.
		Condition: func(cond string) (bool, error) {
			name, ok := strings.CutPrefix(cond, "analyzer:")
			if !ok {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return slices.ContainsFunc(audit.Analyzers, func(a *analysis.Analyzer) bool { return a.Name == name }), nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
	})
}

// goEnvOnce reads the go command's caches and flags once for all scripts.
var goEnvOnce = sync.OnceValues(func() (map[string]string, error) {
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS").Output()
	if err != nil {
		return nil, fmt.Errorf("go env: %w", err)
	}
	var env map[string]string
	return env, json.Unmarshal(out, &env)
})
