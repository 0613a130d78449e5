package rules

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// catalogueFS is the embedded catalogue as a MapFS, with files replaced or
// added by extra, for tests of Load.
func catalogueFS(t *testing.T, extra map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(embedded, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range extra {
		m[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return m
}

// TestDecodeErrors pins the messages for files the loader cannot read into
// the catalogue: each names file, line and field, and says what is expected.
func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		want      string
		is        error
	}{
		{"bad duration",
			"providers:\n  - id: acme\n    name: Acme\n  - id: stripe\n    retry_window: 3 days\n",
			`.idemkit.yaml:5: providers[1].retry_window: invalid duration "3 days": 3 has no unit; write it like 24h, 7d or 30m`, nil},
		{"forever",
			"defaults:\n  ttl: forever\n",
			`.idemkit.yaml:2: defaults.ttl: keys must expire; an idempotency store that keeps keys forever grows without bound`, ErrForever},
		{"unknown field",
			"providers:\n  - id: stripe\n    retry_windw: 96h\n",
			`.idemkit.yaml:3: providers[0]: unknown field "retry_windw" in provider (known: ack, bound, busy, consumer, correction, exclude, id, key, key_example, key_field, kind, name, payload, payload_url, redelivers, reference, retries, retry_window, source, suggested_ttl, unbounded, unverified, window)`,
			ErrUnknownField},
		{"unknown section",
			"provider:\n  - id: x\n",
			`.idemkit.yaml:1: unknown field "provider" in catalogue (known: anti_patterns, checks, collisions, defaults, key_sources, mechanisms, presets, providers, stores, targets, volatile_fields)`,
			ErrUnknownField},
		{"renamed field",
			"providers:\n  - id: github\n    seed_disagreement: GitHub does not retry.\n",
			`.idemkit.yaml:3: providers[0]: renamed field: "seed_disagreement" is now "correction" (same text: a documented number that differs from what is often quoted); rename the key`,
			ErrRenamedField},
		{"nested list not a list",
			"providers:\n  - id: stripe\n    key:\n      from: {part: id}\n",
			`.idemkit.yaml:4: providers[0].key.from: expected a list, got a mapping`, nil},
		{"unknown field in a nested entry",
			"providers:\n  - id: stripe\n    key:\n      from: [{part: id, kind: body, nam: /id}]\n",
			`.idemkit.yaml:4: providers[0].key.from[0]: unknown field "nam" in location (known: kind, name, part)`, ErrUnknownField},
		{"unknown defaults field",
			"defaults:\n  ttll: 48h\n",
			`.idemkit.yaml:2: defaults: unknown field "ttll" in defaults (known: audit_row_for, lease_ttl, retry_after, store, ttl)`,
			ErrUnknownField},
		{"Line is not a file field",
			"providers:\n  - id: stripe\n    Line: 3\n",
			`.idemkit.yaml:3: providers[0]: unknown field "Line" in provider`, ErrUnknownField},
		{"entry not a mapping",
			"providers: [a, b]\n",
			`.idemkit.yaml:1: providers[0]: expected a mapping of fields, got "a"`, nil},
		{"section not a list",
			"providers:\n  id: stripe\n",
			`.idemkit.yaml:2: providers: expected a list of entries, got a mapping`, nil},
		{"document not a mapping",
			"- providers\n",
			`.idemkit.yaml:1: expected a mapping of catalogue fields, got a list`, nil},
		{"not a bool",
			"providers:\n  - id: stripe\n    retries: maybe\n",
			`.idemkit.yaml:3: providers[0].retries: expected true or false, got "maybe"`, nil},
		{"not text",
			"providers:\n  - id: stripe\n    name: [a]\n",
			`.idemkit.yaml:3: providers[0].name: expected text, got a list`, nil},
		{"not a number",
			"collisions:\n  - id: completed\n    status: lots\n",
			`.idemkit.yaml:3: collisions[0].status: expected a whole number, got "lots"`, nil},
		{"not a list",
			"defaults:\n  audit_row_for: payment\n",
			`.idemkit.yaml:2: defaults.audit_row_for: expected a list, got "payment"`, nil},
		{"list of non-text",
			"defaults:\n  audit_row_for: [payment, {a: b}]\n",
			`.idemkit.yaml:2: defaults.audit_row_for[1]: expected text, got a mapping`, nil},
		{"duration not a scalar",
			"defaults:\n  ttl: [24h]\n",
			`.idemkit.yaml:2: defaults.ttl: expected a duration like 24h or 7d`, nil},
		{"answers not a mapping",
			"presets:\n  - id: payment\n    answers: yes\n",
			`.idemkit.yaml:3: presets[0].answers: expected a mapping, got "yes"`, nil},
		{"field twice",
			"defaults:\n  ttl: 48h\n  ttl: 2d\n",
			`.idemkit.yaml:3: defaults: field "ttl" given twice (first on line 2)`, nil},
		{"two documents",
			"defaults:\n  ttl: 48h\n---\nproviders:\n  - id: stripe\n    retry_window: 96h\n",
			`.idemkit.yaml:3: a second YAML document (---); put every section in one document`, nil},
		{"syntax",
			"providers:\n  - id: stripe\n    name: \"unterminated\n",
			`.idemkit.yaml:3: invalid YAML: found unexpected end of stream`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadOverrides(".idemkit.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("loaded %q without error", tt.src)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != ".idemkit.yaml" {
				t.Errorf("error %T is not a *FileError for .idemkit.yaml", err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
}

// TestFileErrorFields checks the typed error's fields, not just its text.
func TestFileErrorFields(t *testing.T) {
	t.Parallel()
	_, err := LoadOverrides("team/.idemkit.yaml", []byte("providers:\n  - id: acme\n  - id: stripe\n    retry_window: 3 days\n"))
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a *FileError", err)
	}
	if fe.File != "team/.idemkit.yaml" || fe.Line != 4 || fe.Field != "providers[1].retry_window" ||
		!strings.Contains(fe.Err.Error(), `"3 days"`) {
		t.Errorf("FileError = %+v", *fe)
	}
	for _, tt := range []struct {
		e    FileError
		want string
	}{
		{FileError{File: "a.yaml", Line: 3, Field: "defaults.ttl", Err: errors.New("bad")}, "a.yaml:3: defaults.ttl: bad"},
		{FileError{File: "a.yaml", Err: errors.New("bad")}, "a.yaml: bad"},
		{FileError{Field: "providers[0].name", Err: errors.New("bad")}, "providers[0].name: bad"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		extra map[string]string
		want  string // "" when the load succeeds
		is    error
	}{
		{"embedded files", nil, "", nil},
		{"an empty file and a comment-only file", map[string]string{"catalog/empty.yaml": "", "catalog/note.yaml": "# nothing\n"}, "", nil},
		{"files that are not .yaml are ignored", map[string]string{"catalog/README.md": "providers: nonsense"}, "", nil},
		{"an ID given in two files",
			map[string]string{"catalog/zz.yaml": "providers:\n  - id: stripe\n"},
			`catalog/zz.yaml:2: providers[0].id: duplicate id "stripe", first given at catalog/providers.yaml:`, ErrDuplicateID},
		{"a collision row missing",
			map[string]string{"catalog/collisions.yaml": strings.Join([]string{"collisions:",
				"  - {id: completed, case: c, meaning: m, response: r}",
				"  - {id: in_progress, case: c, meaning: m, response: r}",
				"  - {id: mismatch, case: c, meaning: m, response: r}"}, "\n")},
			`catalog/collisions.yaml:1: collisions: missing required field: the collision table has no "expired" row`, ErrMissingField},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(catalogueFS(t, tt.extra))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.want == "":
				if len(c.Providers) != len(Default().Providers) {
					t.Errorf("loaded %d providers, want %d", len(c.Providers), len(Default().Providers))
				}
			case err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, tt.is):
				t.Errorf("Load error:\n got %v\nwant %s (%v)", err, tt.want, tt.is)
			}
		})
	}
	if _, err := Load(fstest.MapFS{"a.txt": {}}); err == nil || err.Error() != "load catalogue: no .yaml files" {
		t.Errorf("Load of a directory without YAML = %v", err)
	}
}
