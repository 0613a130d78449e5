// Command idemkit-vet is idemkit's audit checks and nothing else, for
// go vet -vettool:
//
//	go vet -vettool=$(command -v idemkit-vet) ./...
//
// go vet starts its tool once for every package it analyses, dependencies
// included, so the tool's start-up is paid thousands of times. idemkit
// itself links the interactive form and glamour's renderer, whose package
// initialisation (chroma's styles and lexers) costs about 30 ms a process;
// this binary links only the analyzers. Its findings are idemkit's: both
// run the same audit.Analyzers.
//
// Installed beside idemkit, it also serves go vet -vettool=idemkit:
// idemkit hands each of go vet's runs to it (see internal/handoff) and
// names itself in IDEMKIT_VET_PARENT. Then idemkit-vet answers go vet's
// -V=full, the key of go vet's cache, only if it is the same build as
// that idemkit, so that a stale idemkit-vet never answers for a newer
// idemkit.
package main

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"runtime/debug"
	"slices"

	"github.com/idemkit/idemkit/internal/audit"
	"github.com/idemkit/idemkit/internal/handoff"
)

func main() {
	if len(os.Args) == 2 && slices.Contains([]string{"-h", "-help", "--help"}, os.Args[1]) {
		// unitchecker answers -h with a short usage and exit 1; its help
		// command gives the full help, analyzers and flags, and exits 0.
		os.Args[1] = "help"
	}
	if parent := os.Getenv(handoff.EnvParent); parent != "" && slices.ContainsFunc(os.Args[1:], isVersionFlag) {
		self, _ := debug.ReadBuildInfo()
		if err := sameBuild(self, parent); err != nil {
			fmt.Fprintf(os.Stderr, "idemkit-vet: %v\n", err)
			os.Exit(2)
		}
	}
	audit.VetMain()
}

func isVersionFlag(arg string) bool { return len(arg) >= 3 && arg[:3] == "-V=" }

// sameBuild returns an error naming the difference and the fix when the
// idemkit binary at parent was not built from the module, version and
// dependencies that built self.
func sameBuild(self *debug.BuildInfo, parent string) error {
	other, err := buildinfo.ReadFile(parent)
	if err != nil {
		return fmt.Errorf("cannot read the build of %s, which handed go vet over: %v; set %s=1 to run the checks inside idemkit", parent, err, handoff.EnvInProcess)
	}
	if self == nil {
		return fmt.Errorf("idemkit-vet carries no build information; rebuild it with go build or go install, or set %s=1", handoff.EnvInProcess)
	}
	if diff := buildDiff(self, other); diff != "" {
		return fmt.Errorf("%s is not the build of idemkit at %s (%s): go vet would cache the findings of another version. "+
			"Install both from one version (go install github.com/idemkit/idemkit/cmd/...@VERSION, or make build), or set %s=1 to run the checks inside idemkit",
			exe(), parent, diff, handoff.EnvInProcess)
	}
	return nil
}

// buildDiff describes the first difference between the builds that
// matters to the analysis: module version, VCS revision and state, Go
// version, and the version of every dependency idemkit-vet links.
func buildDiff(self, other *debug.BuildInfo) string {
	if other.Main.Path != self.Main.Path {
		return fmt.Sprintf("it is a build of %q, not of %s", other.Main.Path, self.Main.Path)
	}
	if self.Main.Version != other.Main.Version || self.Main.Sum != other.Main.Sum {
		return fmt.Sprintf("idemkit-vet is %s %s, idemkit is %s", self.Main.Path, self.Main.Version, other.Main.Version)
	}
	if self.GoVersion != other.GoVersion {
		return fmt.Sprintf("idemkit-vet was built by %s, idemkit by %s", self.GoVersion, other.GoVersion)
	}
	for _, key := range []string{"vcs.revision", "vcs.time", "vcs.modified"} {
		if a, b := setting(self, key), setting(other, key); a != b {
			return fmt.Sprintf("%s: idemkit-vet %q, idemkit %q", key, a, b)
		}
	}
	deps := make(map[string]*debug.Module, len(other.Deps))
	for _, d := range other.Deps {
		deps[d.Path] = d
	}
	for _, d := range self.Deps {
		o, ok := deps[d.Path]
		switch {
		case !ok:
			return fmt.Sprintf("idemkit links no %s", d.Path)
		case module(o) != module(d):
			return fmt.Sprintf("%s: idemkit-vet %s, idemkit %s", d.Path, module(d), module(o))
		}
	}
	return ""
}

func setting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}

func module(m *debug.Module) string {
	if m.Replace != nil {
		return m.Version + " => " + module(m.Replace)
	}
	return m.Path + "@" + m.Version + " " + m.Sum
}

func exe() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "idemkit-vet"
}
