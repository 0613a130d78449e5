package driver

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Cache keeps results between runs, so that a repeat audit of unchanged
// code answers at once. The driver decides what a result depends on and
// names it by a key; the store behind the key is the caller's (the
// command layer keeps files under the user's cache directory).
type Cache interface {
	// Get returns the data last put under key, if any.
	Get(key string) ([]byte, bool)
	// Put stores data under key; an error only costs the next run time.
	Put(key string, data []byte) error
}

// cacheVersion changes whenever the encoding of a cached result or what
// goes into its key does, so that no older entry is ever read.
const cacheVersion = "idemkit audit cache 2"

// cacheKey names everything that can change a run's result:
//
//   - the build of the analyzers (Options.Build) and their names;
//   - the directory, the patterns and the go command's environment (GO*
//     and CGO_* variables), which choose the packages and their files;
//   - the package graph go list gave, package by package: for user code,
//     the name and content of every Go file (test files included), of
//     every file it embeds and of the module's go.mod; for every other
//     package, its export data, whose file in the build cache is named by
//     the hash of its content, or, when it has none, its errors and its
//     files' contents.
//
// A file outside the graph cannot change the result: the checks read
// nothing else. They do read embedded files: a Redis script kept in a
// .lua file beside the code.
func cacheKey(opts Options, patterns []string, listed []*packages.Package, user map[string]bool) (string, error) {
	h := sha256.New()
	line := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%q ", p)
		}
		h.Write([]byte("\n"))
	}
	line(cacheVersion)
	line("build", opts.Build)
	for _, a := range opts.Analyzers {
		line("analyzer", a.Name)
	}
	line("dir", opts.Dir)
	line(append([]string{"patterns"}, patterns...)...)
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	var goenv []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "GO") || strings.HasPrefix(kv, "CGO_") {
			goenv = append(goenv, kv)
		}
	}
	slices.Sort(goenv)
	line(append([]string{"env"}, goenv...)...)

	var all []*packages.Package
	packages.Visit(listed, nil, func(p *packages.Package) { all = append(all, p) })
	slices.SortFunc(all, func(a, b *packages.Package) int { return strings.Compare(a.ID, b.ID) })
	goMods := make(map[string]bool)
	for _, p := range all {
		line("package", p.ID, p.PkgPath, p.Name)
		if user[p.PkgPath] || p.ExportFile == "" {
			for _, e := range p.Errors {
				line("error", e.Error())
			}
			for _, f := range slices.Concat(p.GoFiles, p.OtherFiles, p.EmbedFiles) {
				if err := hashFile(h, f); err != nil {
					return "", err
				}
			}
			if p.Module != nil && p.Module.GoMod != "" && !goMods[p.Module.GoMod] {
				goMods[p.Module.GoMod] = true
				if err := hashFile(h, p.Module.GoMod); err != nil {
					return "", err
				}
			}
			continue
		}
		line("export", p.ExportFile)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashFile adds a file's name and content to h.
func hashFile(h hash.Hash, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("cache key: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(h, "file %q\n", name)
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return fmt.Errorf("cache key: %s: %w", name, err)
	}
	fmt.Fprintf(h, "%x\n", fh.Sum(nil))
	return nil
}

// cachedResult is a Result as it is stored: every field, the unexported
// file sizes that PlanFixes checks included.
type cachedResult struct {
	Findings  []Finding
	Errors    []*PackageError
	Packages  int
	Analyzers []string
	FileSizes map[string]int
}

func encodeResult(res *Result) ([]byte, error) {
	return json.Marshal(cachedResult{res.Findings, res.Errors, res.Packages, res.Analyzers, res.fileSizes})
}

func decodeResult(data []byte) (*Result, error) {
	var c cachedResult
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	if c.FileSizes == nil {
		c.FileSizes = make(map[string]int)
	}
	return &Result{Findings: c.Findings, Errors: c.Errors, Packages: c.Packages, Analyzers: c.Analyzers, Cached: true, fileSizes: c.FileSizes}, nil
}
