package rules

import (
	"os"
	"path/filepath"
)

// ConfigFile is the name of a team's catalogue overrides at its repo root.
const ConfigFile = ".idemkit.yaml"

// FindRepoConfig looks for ConfigFile in dir and its parents, up to and
// including the first directory that holds .git or go.mod (the root of the
// repository or module), so that idemkit run anywhere inside a repo finds
// the team's rules and never a stray file above the repo. It returns the
// file's path and whether one was found.
func FindRepoConfig(dir string) (path string, ok bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, ConfigFile)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
		if exists(filepath.Join(dir, ".git")) || exists(filepath.Join(dir, "go.mod")) {
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
