package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildDiff(t *testing.T) {
	t.Parallel()
	base := func() *debug.BuildInfo {
		return &debug.BuildInfo{
			GoVersion: "go1.26.0",
			Main:      debug.Module{Path: "github.com/idemkit/idemkit", Version: "v1.2.0", Sum: "h1:a="},
			Deps: []*debug.Module{
				{Path: "golang.org/x/tools", Version: "v0.52.0", Sum: "h1:t="},
				{Path: "gopkg.in/yaml.v3", Version: "v3.0.1", Sum: "h1:y="},
			},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}},
		}
	}
	cases := []struct {
		name   string
		change func(idemkit *debug.BuildInfo)
		want   string // in the difference; "" for the same build
	}{
		{name: "same build", change: func(*debug.BuildInfo) {}},
		{name: "idemkit links more", change: func(b *debug.BuildInfo) {
			b.Deps = append(b.Deps, &debug.Module{Path: "github.com/charmbracelet/glamour", Version: "v1.0.0"})
		}},
		{name: "another program", change: func(b *debug.BuildInfo) { b.Main = debug.Module{Path: "cmd/gofmt"} },
			want: `it is a build of "cmd/gofmt"`},
		{name: "another version", change: func(b *debug.BuildInfo) { b.Main.Version = "v1.3.0" },
			want: "idemkit-vet is github.com/idemkit/idemkit v1.2.0, idemkit is v1.3.0"},
		{name: "another Go", change: func(b *debug.BuildInfo) { b.GoVersion = "go1.26.1" },
			want: "built by go1.26.0, idemkit by go1.26.1"},
		{name: "another revision", change: func(b *debug.BuildInfo) { b.Settings[0].Value = "def" },
			want: `vcs.revision: idemkit-vet "abc", idemkit "def"`},
		{name: "modified tree", change: func(b *debug.BuildInfo) { b.Settings[1].Value = "true" },
			want: `vcs.modified: idemkit-vet "false", idemkit "true"`},
		{name: "another dependency version", change: func(b *debug.BuildInfo) {
			b.Deps[0] = &debug.Module{Path: "golang.org/x/tools", Version: "v0.53.0", Sum: "h1:u="}
		},
			want: "golang.org/x/tools: idemkit-vet golang.org/x/tools@v0.52.0 h1:t=, idemkit golang.org/x/tools@v0.53.0 h1:u="},
		{name: "a dependency replaced", change: func(b *debug.BuildInfo) {
			b.Deps[1] = &debug.Module{Path: "gopkg.in/yaml.v3", Version: "v3.0.1", Replace: &debug.Module{Path: "../yaml"}}
		}, want: "gopkg.in/yaml.v3: idemkit-vet gopkg.in/yaml.v3@v3.0.1 h1:y=, idemkit v3.0.1 => ../yaml@ "},
		{name: "a dependency missing", change: func(b *debug.BuildInfo) { b.Deps = b.Deps[:1] },
			want: "idemkit links no gopkg.in/yaml.v3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			idemkit := base()
			tc.change(idemkit)
			got := buildDiff(base(), idemkit)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("buildDiff = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSameBuildUnreadable(t *testing.T) {
	t.Parallel()
	notGo := filepath.Join(t.TempDir(), "idemkit")
	if err := os.WriteFile(notGo, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	self, _ := debug.ReadBuildInfo()
	err := sameBuild(self, notGo)
	if err == nil || !strings.Contains(err.Error(), "cannot read the build of "+notGo) || !strings.Contains(err.Error(), "IDEMKIT_VET_INPROCESS=1") {
		t.Errorf("sameBuild(a shell script) = %v, want an error naming it and IDEMKIT_VET_INPROCESS=1", err)
	}
}

// TestHelp: -h, -help and --help print the help on stdout and exit 0, as
// idemkit's commands do.
func TestHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("builds idemkit-vet")
	}
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "idemkit-vet")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, flag := range []string{"-h", "-help", "--help"} {
		var stdout, stderr strings.Builder
		cmd := exec.Command(bin, flag)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "checkthenact") || stderr.Len() > 0 {
			t.Errorf("idemkit-vet %s: %v\nstdout:\n%.300s\nstderr:\n%s", flag, err, stdout.String(), stderr.String())
		}
	}
}
