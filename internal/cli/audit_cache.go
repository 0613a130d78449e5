package cli

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// auditCache keeps idemkit audit's results as files in a directory, one
// per key, for driver.Options.Cache: the driver names every input in the
// key, so a file is either right for the code as it is or never read.
// Entries unused for cacheMaxAge are removed when a new one is written.
type auditCache struct {
	dir string
}

const (
	// cacheMaxAge is how long an entry is kept after its last use.
	cacheMaxAge = 5 * 24 * time.Hour
	// cacheTouchAfter bounds how often a hit refreshes its entry's time.
	cacheTouchAfter = time.Hour
)

func (c auditCache) path(key string) string {
	return filepath.Join(c.dir, "audit-"+key+".json")
}

// Get reads the entry of key and marks it used.
func (c auditCache) Get(key string) ([]byte, bool) {
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false
	}
	if fi, err := os.Stat(p); err == nil && time.Since(fi.ModTime()) > cacheTouchAfter {
		now := time.Now()
		_ = os.Chtimes(p, now, now) // only ages the entry sooner
	}
	return data, true
}

// Put writes the entry of key atomically and removes the stale ones.
func (c auditCache) Put(key string, data []byte) error {
	if err := writeFileAtomic(c.path(key), data, true); err != nil {
		return err
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "audit-") || !strings.HasSuffix(name, ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > cacheMaxAge {
			os.Remove(filepath.Join(c.dir, name))
		}
	}
	return nil
}

// auditCacheDir is where idemkit audit keeps its cache: $IDEMKIT_CACHE if
// set ("off" turns the cache off), else idemkit under the user's cache
// directory. "" means no cache, also when there is no such directory.
func auditCacheDir(getenv func(string) string) string {
	switch v := getenv("IDEMKIT_CACHE"); v {
	case "off":
		return ""
	case "":
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "idemkit")
	default:
		return v
	}
}

var (
	buildOnce sync.Once
	buildHash string
)

// buildID identifies this build of idemkit, the analyzers included, so
// that a rebuilt idemkit never reads what another wrote: the Go build ID
// the linker stamps into the executable (the go command's own test of
// staleness, a hash of its inputs and content), read from the ELF note or
// the marker near the start of other formats; failing that, a hash of the
// whole executable, which takes a few hundred milliseconds more. It is ""
// (nothing is cached) when the executable cannot be read.
func buildID() string {
	buildOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		if id := goBuildID(exe); id != "" {
			buildHash = "go:" + id
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			buildHash = "sha256:" + hex.EncodeToString(h.Sum(nil))
		}
	})
	return buildHash
}

// goBuildID reads the Go build ID of an executable, or "".
func goBuildID(exe string) string {
	if f, err := elf.Open(exe); err == nil {
		defer f.Close()
		if sect := f.Section(".note.go.buildid"); sect != nil {
			if data, err := sect.Data(); err == nil && len(data) > 16 {
				// A note: name size, desc size, type, then "Go\x00\x00" and the ID.
				descsz := f.ByteOrder.Uint32(data[4:8])
				if int(16+descsz) <= len(data) {
					return string(data[16 : 16+descsz])
				}
			}
		}
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 32*1024)
	n, _ := io.ReadFull(f, head)
	const marker = "\xff Go build ID: \""
	_, rest, ok := bytes.Cut(head[:n], []byte(marker))
	if !ok {
		return ""
	}
	id, _, ok := bytes.Cut(rest, []byte("\"\n \xff"))
	if !ok {
		return ""
	}
	return string(id)
}
