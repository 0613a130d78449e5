package spec

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

func TestParseValid(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"lf":          validFile,
		"crlf":        strings.ReplaceAll(validFile, "\n", "\r\n"),
		"no body":     strings.Split(validFile, "# Idempotency Design")[0],
		"closing eof": strings.TrimSuffix(strings.Split(validFile, "# Idempotency Design")[0], "\n"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(data))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if want := validSpec(); !reflect.DeepEqual(got, want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", got, want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// lineOf is the 1-based line of the first occurrence of sub in s.
func lineOf(t *testing.T, s, sub string) int {
	t.Helper()
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("%q not in the test file", sub)
	}
	return strings.Count(s[:i], "\n") + 1
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string // replaced once in validFile
		at       string // the text on the line the error points at
		field    string
		msg      string
		is       error
	}{
		{name: "unknown top-level field", old: "kind: payment\n", new: "kind: payment\ncolour: red\n", at: "colour", field: "colour", msg: "unknown field; known fields here: schema, idemkit, operation"},
		{name: "unknown nested field", old: "  lease: 30s", new: "  leese: 30s", at: "leese", field: "ttl.leese", msg: "known fields here: duration, retry_window, window_source, justification, window_reference, lease, longest_run"},
		{name: "unknown field in a list item", old: "    how: Idempotency-Key header", new: "    hwo: Idempotency-Key header", at: "hwo", field: "downstream[0].hwo", msg: "unknown field"},
		{name: "invalid duration", old: "  duration: 1d", new: "  duration: 5 parsecs", at: "5 parsecs", field: "ttl.duration", msg: "invalid duration"},
		{name: "forever", old: "  duration: 1d", new: "  duration: forever", at: "forever", field: "ttl.duration", msg: "keys must expire", is: rules.ErrForever},
		{name: "not a number", old: "schema: 1", new: "schema: one", at: "schema: one", field: "schema", msg: "cannot unmarshal !!str `one` into int"},
		{name: "not a bool", old: "audit_row: true", new: "audit_row: maybe", at: "maybe", field: "store.audit_row", msg: "into bool"},
		{name: "mapping for a value", old: "    key: '{key}:order'", new: "    key: {a: b}", at: "{a: b}", field: "downstream[1].key", msg: "expected a single value, found a mapping"},
		{name: "mapping for a list", old: "hash:\n  algorithm: sha256-jcs\n  include:\n", new: "hash:\n  algorithm: sha256-jcs\n  include:\n    x: y\n  old:\n", at: "    x: y", field: "hash.include", msg: "expected a list, found a mapping"},
		{name: "list for a struct", old: "store:\n  kind: redis\n", new: "store:\n  - kind: redis\nunused:\n", at: "  - kind: redis", field: "store", msg: "expected fields, found a list"},
		{name: "set twice", old: "slug: charge-card\n", new: "slug: charge-card\nslug: other\n", at: "slug: other", field: "slug", msg: "set twice (first at line 5)"},
		{name: "yaml syntax", old: "kind: payment\n", new: "kind: @payment\n", at: "kind: @payment", msg: "found character that cannot start any token"},
		{name: "newer schema wins over unknown fields", old: "schema: 1\n", new: "schema: 2\nfuture_field: x\n", at: "schema: 2", field: "schema", msg: "line 2: schema: written by a newer idemkit (schema 2); upgrade idemkit", is: ErrNewerSchema},
		{name: "no front matter", old: "---\nschema", new: "schema", at: "schema", msg: `no front matter: a spec starts with a "---" line`, is: ErrNoFrontMatter},
		{name: "unclosed", old: "\n---\n#", new: "\n#", at: "The body", msg: `not closed by a "---" line`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := strings.Replace(validFile, tt.old, tt.new, 1)
			if data == validFile {
				t.Fatalf("%q not in the test file", tt.old)
			}
			s, err := Parse([]byte(data))
			if err == nil {
				t.Fatalf("Parse succeeded with %+v", s)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			wantLine := lineOf(t, data, tt.at)
			if tt.name == "unclosed" {
				wantLine = strings.Count(data, "\n") + 1
			}
			if pe.Line != wantLine || pe.Field != tt.field {
				t.Errorf("error at line %d field %q, want line %d field %q (%v)", pe.Line, pe.Field, wantLine, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
		})
	}
}

func TestParseErrorFormat(t *testing.T) {
	t.Parallel()
	data := strings.Replace(validFile, "  duration: 1d", "  duration: 5x", 1)
	_, err := Parse([]byte(data))
	want := `line 33: ttl.duration: invalid duration "5x": unknown unit "x"; use d, h, m or s`
	if err == nil || err.Error() != want {
		t.Errorf("Parse error = %v\nwant %s", err, want)
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	t.Parallel()
	data := strings.Replace(validFile, "  lease: 30s", "  lease: soon", 1)
	data = strings.Replace(data, "    status: 422", "    status: 422\n    severity: high", 1)
	_, err := Parse([]byte(data))
	if err == nil {
		t.Fatal("Parse succeeded")
	}
	for _, want := range []string{
		`ttl.lease: invalid duration "soon"`,
		"collisions[2].severity: unknown field",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not report %q", err, want)
		}
	}
	if n := strings.Count(err.Error(), "\n") + 1; n != 2 {
		t.Errorf("got %d problems, want 2:\n%v", n, err)
	}
}

func TestParseEmpty(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"---\n---\n", "---\n# only a comment\n---\n", "---\n---"} {
		_, err := Parse([]byte(data))
		if err == nil || err.Error() != "line 2: empty front matter" {
			t.Errorf("Parse(%q) = %v, want line 2: empty front matter", data, err)
		}
	}
}

func TestParseTopLevelList(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("---\n- schema: 1\n- slug: x\n---\n"))
	if err == nil || err.Error() != "line 2: front matter: expected fields, found a list" {
		t.Errorf("Parse = %v, want line 2: front matter: expected fields, found a list", err)
	}
}

func TestParseAliasAndNull(t *testing.T) {
	t.Parallel()
	data := strings.Replace(validFile, "preset: payment", "preset: &p payment", 1)
	data = strings.Replace(data, "kind: payment", "kind: *p", 1)
	data = strings.Replace(data, "downstream:\n  - name: charge", "downstream:\n  - name: charge\n    how: ~", 1)
	data = strings.Replace(data, "    how: Idempotency-Key header\n", "", 1)
	s, err := Parse([]byte(data))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if s.Kind != "payment" || s.Downstream[0].How != "" {
		t.Errorf("kind %q (want payment through the alias), how %q (want empty for null)", s.Kind, s.Downstream[0].How)
	}
}
