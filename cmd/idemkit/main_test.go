package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
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
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") == "1",
	})
}

func TestIsVetProtocol(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"-flags"}, true},
		{[]string{"-V=full"}, true},
		{[]string{"/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-json", "-checkthenact", "/tmp/vet.cfg"}, true},
		{nil, false},
		{[]string{"version"}, false},
		{[]string{"design", "x.cfg"}, false},
		{[]string{"audit", "./..."}, false},
		{[]string{"--help"}, false},
		{[]string{"-V=full", "design"}, false},
	}
	for _, tc := range cases {
		if got := isVetProtocol(tc.args); got != tc.want {
			t.Errorf("isVetProtocol(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
