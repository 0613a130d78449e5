// Package genplan decides what idemkit generate does to the files of a
// user's module, and does it. templates generates code as a pure function,
// paths to bytes; this package resolves where the code goes (the target
// directory, its module, and for a handler the runtime it imports and its
// package name), compares what was generated with what is on disk (New),
// reports drift without writing (Plan.Check), refuses to lose hand edits
// (Plan.Refuse), and writes atomically, never outside the target
// (Plan.Apply).
//
// It serves the generate commands and design --generate, so its messages
// are worded for their command line: they name the flag at fault (--dir,
// --runtime, --package, --force) and the fix. Errors are typed by what
// the user does about them: *InputError, change the request;
// *ConflictError, move the hand edits or pass --force; *DriftError,
// regenerate. Any other error is a failure of the file system.
package genplan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// InputError is a request that cannot be carried out as given: a --dir
// that is a file, a directory outside any module, a --package that would
// not build. Its message names the flag and the fix.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, a ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, a...)}
}

// Target is a directory to generate code into, and the module that holds
// it.
type Target struct {
	// Dir is the directory with its symbolic links followed; it need not
	// exist yet.
	Dir string
	// Root is the directory of the go.mod governing Dir, and GoMod its
	// contents.
	Root  string
	GoMod *modfile.File
}

// ResolveTarget resolves dir, given as the user wrote it, against the
// working directory wd, and finds its module.
func ResolveTarget(wd, dir string) (*Target, error) {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, dir)
	}
	target, err := realPath(filepath.Clean(abs))
	if err != nil {
		return nil, inputErr("--dir %s: %v", dir, err)
	}
	if fi, err := os.Stat(target); err == nil && !fi.IsDir() {
		return nil, inputErr("--dir %s is a file, not a directory", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, inputErr("--dir %s: %v", dir, err)
	}
	root, gomod, err := findModule(target)
	if err != nil {
		return nil, err
	}
	return &Target{Dir: target, Root: root, GoMod: gomod}, nil
}

// Rel is Dir relative to the module root, slash-separated: "." for the
// root itself.
func (t *Target) Rel() string {
	rel, _ := filepath.Rel(t.Root, t.Dir) // cannot fail: Root is Dir or one of its parents
	return filepath.ToSlash(rel)
}

// Module is the module path of the target's module.
func (t *Target) Module() string { return t.GoMod.Module.Mod.Path }

// Cite is path as generated comments cite it: relative to the module
// root, or just its name when it lies outside the module, so that
// generated code never holds a path of one machine.
func (t *Target) Cite(path string) string {
	if real, err := realPath(path); err == nil {
		if rel, err := filepath.Rel(t.Root, real); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// findModule finds the go.mod governing dir, in dir or the nearest
// directory above it, and returns its directory and contents.
func findModule(dir string) (string, *modfile.File, error) {
	for d := dir; ; d = filepath.Dir(d) {
		path := filepath.Join(d, "go.mod")
		data, err := os.ReadFile(path)
		if err == nil {
			gomod, err := modfile.ParseLax(path, data, nil)
			if err != nil {
				return "", nil, &InputError{Msg: err.Error()}
			}
			if gomod.Module == nil {
				return "", nil, inputErr("%s names no module", path)
			}
			return d, gomod, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("read %s: %w", path, err)
		}
		if filepath.Dir(d) == d {
			return "", nil, inputErr("%s is not inside a Go module: no go.mod in it or any directory above it (run 'go mod init' first)", dir)
		}
	}
}

// Relative returns the function that shows a path as the user should read
// it: relative to the working directory wd, the way it was most likely
// given.
func Relative(wd string) func(string) string {
	real, err := realPath(wd)
	return func(p string) string {
		if err == nil {
			if rel, err := filepath.Rel(real, p); err == nil {
				return rel
			}
		}
		return p
	}
}

// realPath returns p with the symbolic links of its longest existing
// prefix followed, so paths compare as the file system sees them; the part
// that does not exist yet is kept as written.
func realPath(p string) (string, error) {
	var rest []string
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// inside reports whether p, once its symbolic links are followed, is root
// or below it. root must already be a real path.
func inside(root, p string) bool {
	real, err := realPath(p)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, real)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
