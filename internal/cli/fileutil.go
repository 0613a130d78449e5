package cli

import (
	"path/filepath"

	"github.com/idemkit/idemkit/internal/genplan"
)

// errExists is returned by writeFileAtomic when the target exists and
// overwriting was not asked for.
var errExists = genplan.ErrExists

// writeFileAtomic writes data to path atomically; without force it never
// replaces an existing file (see genplan.WriteFile). Specs and fixes are
// written the way generated code is.
func writeFileAtomic(path string, data []byte, force bool) error {
	return genplan.WriteFile(path, data, force)
}

// resolve makes p absolute against the factory's working directory.
func (f *Factory) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(f.Dir, p)
}

// rel shows p relative to the working directory when it is inside it.
func (f *Factory) rel(p string) string {
	if r, err := filepath.Rel(f.Dir, p); err == nil && filepath.IsLocal(r) {
		return r
	}
	return p
}
