package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// errExists is returned by writeFileAtomic when the target exists and
// overwriting was not asked for.
var errExists = errors.New("file exists")

// writeFileAtomic writes data to path through a temporary file in the same
// directory, so a reader sees the old file or the new one, never half of
// one. Without force an existing file is left alone: the new file is linked
// into place, which fails if the name is taken, so there is no window
// between checking and writing.
func writeFileAtomic(path string, data []byte, force bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(name, 0o644); err != nil {
		return err
	}
	if force {
		return os.Rename(name, path)
	}
	if err := os.Link(name, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s: %w", path, errExists)
		}
		return err
	}
	return nil
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
