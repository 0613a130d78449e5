package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"
)

// mapCache is a Cache in memory that counts what it is asked.
type mapCache struct {
	mu         sync.Mutex
	data       map[string][]byte
	gets, puts int
}

func (c *mapCache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	d, ok := c.data[key]
	return d, ok
}

func (c *mapCache) Put(key string, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	c.data[key] = data
	return nil
}

// TestRunCache checks that a repeat run on unchanged code is answered
// from the cache, and that every input of a result misses it: a file of
// the package, a file of user code it imports (whose fact makes the
// finding), the suite, the build, the patterns. A stale result must be
// impossible.
func TestRunCache(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.26\n",
		"store/s.go": "package store\n\nimport \"strings\"\n\n//marked\nfunc Claim(k string) string { return strings.ToUpper(k) }\n",
		"svc/svc.go": "package svc\n\nimport \"example.com/m/store\"\n\nfunc H(k string) { _ = store.Claim(k) }\n",
		"lib/lib.go": "package lib\n\nfunc Bad() int { return 0 }\n\nfunc Good() int { return 1 }\n",
	})
	cache := &mapCache{data: make(map[string][]byte)}
	marked := drivertest.Marked(nil)
	run := func(t *testing.T, build string, analyzers []*analysis.Analyzer, patterns ...string) *Result {
		t.Helper()
		res, err := Run(context.Background(), Options{Dir: dir, Patterns: patterns, Analyzers: analyzers, Cache: cache, Build: build})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	findings := func(res *Result) string {
		var b strings.Builder
		for _, f := range res.Findings {
			b.WriteString(relFile(f.Pos.Filename, dir) + ": " + f.Message + "\n")
		}
		return b.String()
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	suite := []*analysis.Analyzer{marked}

	first := run(t, "b1", suite, "./svc")
	if first.Cached || findings(first) != "svc/svc.go: call to marked Claim (marked)\n" {
		t.Fatalf("first run: cached %v, findings:\n%s", first.Cached, findings(first))
	}
	again := run(t, "b1", suite, "./svc")
	if !again.Cached || findings(again) != findings(first) || again.Packages != first.Packages {
		t.Fatalf("repeat run: cached %v, %d packages, findings:\n%s", again.Cached, again.Packages, findings(again))
	}

	// The fact comes from store, which the patterns leave out: editing it
	// must change the result, even where its compiled form stays the same
	// (a comment, on the same line).
	write("store/s.go", "package store\n\nimport \"strings\"\n\n//marker\nfunc Claim(k string) string { return strings.ToUpper(k) }\n")
	if res := run(t, "b1", suite, "./svc"); res.Cached || findings(res) != "" {
		t.Errorf("after unmarking store.Claim: cached %v, findings:\n%s", res.Cached, findings(res))
	}
	// A file of the package itself, and a new one beside it.
	write("svc/svc.go", "package svc\n\nfunc H(k string) {}\n")
	if res := run(t, "b1", suite, "./svc"); res.Cached || res.Packages != 1 {
		t.Errorf("after editing svc: cached %v", res.Cached)
	}
	write("svc/more.go", "package svc\n\nimport \"example.com/m/lib\"\n\nvar _ = lib.Bad()\n")
	if res := run(t, "b1", []*analysis.Analyzer{drivertest.BadCall}, "./svc"); res.Cached || !strings.Contains(findings(res), "svc/more.go: call to Bad") {
		t.Errorf("after adding svc/more.go: cached %v, findings:\n%s", res.Cached, findings(res))
	}
	// Each input alone: the build, the suite, the patterns.
	run(t, "b1", suite, "./svc")
	if !run(t, "b1", suite, "./svc").Cached {
		t.Errorf("the same inputs again should hit")
	}
	variants := []struct {
		name     string
		build    string
		suite    []*analysis.Analyzer
		patterns []string
	}{
		{"another build", "b2", suite, []string{"./svc"}},
		{"another suite", "b1", []*analysis.Analyzer{marked, drivertest.BadCall}, []string{"./svc"}},
		{"another pattern", "b1", suite, []string{"./..."}},
		{"more patterns", "b1", suite, []string{"./svc", "./lib"}},
	}
	for _, v := range variants {
		if run(t, v.build, v.suite, v.patterns...).Cached {
			t.Errorf("%s: answered from the cache", v.name)
		}
	}
	// A file the package embeds, which a check may read (a Redis script
	// kept in a .lua file), though the Go code stays the same.
	write("lib/claim.lua", "return 1\n")
	write("lib/embed.go", "package lib\n\nimport _ \"embed\"\n\n//go:embed claim.lua\nvar claimLua string\n")
	run(t, "b1", suite, "./lib")
	write("lib/claim.lua", "return 0\n")
	if run(t, "b1", suite, "./lib").Cached {
		t.Errorf("after editing an embedded file: answered from the cache")
	}
	// Without a build identity nothing is cached.
	puts := cache.puts
	if res, err := Run(context.Background(), Options{Dir: dir, Patterns: []string{"./svc"}, Analyzers: suite, Cache: cache}); err != nil || res.Cached || cache.puts != puts {
		t.Errorf("without Build: err %v, cached %v, %d puts", err, res.Cached, cache.puts-puts)
	}
}
