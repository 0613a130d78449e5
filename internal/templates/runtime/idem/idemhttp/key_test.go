package idemhttp

import (
	"errors"
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("k", MaxKeyLen)
	for _, tc := range []struct {
		name   string
		values []string
		want   string
		err    error
	}{
		{"string", []string{`"abc"`}, "abc", nil},
		{"bare uuid", []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}, "8e03978e-40d5-43e8-bc93-6894a57f9324", nil},
		{"bare token", []string{"order_42"}, "order_42", nil},
		{"bare base64", []string{"aGVsbG8+/w=="}, "aGVsbG8+/w==", nil},
		{"string with space", []string{`"two words"`}, "two words", nil},
		{"string with escapes", []string{`"a\"b\\c"`}, `a"b\c`, nil},
		{"string with parameters", []string{`"abc";v=1`}, "abc", nil},
		{"surrounding whitespace", []string{"  \"abc\"\t"}, "abc", nil},
		{"longest", []string{long}, long, nil},
		{"longest quoted", []string{`"` + long + `"`}, long, nil},
		{"absent", nil, "", ErrNoKey},
		{"repeated header", []string{`"a"`, `"a"`}, "", ErrMalformedKey},
		{"list", []string{`"a", "b"`}, "", ErrMalformedKey},
		{"bare list", []string{"a, b"}, "", ErrMalformedKey},
		{"inner list", []string{`("a" "b")`}, "", ErrMalformedKey},
		{"empty string", []string{`""`}, "", ErrMalformedKey},
		{"empty value", []string{""}, "", ErrMalformedKey},
		{"blank value", []string{"   "}, "", ErrMalformedKey},
		{"unterminated string", []string{`"abc`}, "", ErrMalformedKey},
		{"text after string", []string{`"abc"x`}, "", ErrMalformedKey},
		{"control character quoted", []string{"\"a\x01b\""}, "", ErrMalformedKey},
		{"control character bare", []string{"a\x01b"}, "", ErrMalformedKey},
		{"tab inside bare", []string{"a\tb"}, "", ErrMalformedKey},
		{"DEL", []string{"a\x7fb"}, "", ErrMalformedKey},
		{"non-ASCII bare", []string{"clé"}, "", ErrMalformedKey},
		{"non-ASCII quoted", []string{`"clé"`}, "", ErrMalformedKey},
		{"bare with quote", []string{`a"b`}, "", ErrMalformedKey},
		{"bare with parameter", []string{"abc;v=1"}, "", ErrMalformedKey},
		{"bare with backslash", []string{`a\b`}, "", ErrMalformedKey},
		{"too long", []string{long + "k"}, "", ErrMalformedKey},
		{"too long quoted", []string{`"` + long + `k"`}, "", ErrMalformedKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseKey(tc.values)
			if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Errorf("ParseKey(%q) = %q, %v; want %q, %v", tc.values, got, err, tc.want, tc.err)
			}
		})
	}
}

// FuzzParseKey: whatever the header, ParseKey either refuses it or returns a key of 1 to 255
// visible ASCII bytes or spaces, which is what the store and the logs can rely on.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{`"abc"`, "8e03978e-40d5", `"a", "b"`, `"a\"b"`, `("a")`, `?1`, `:aGk=:`, `"x";p=1`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		key, err := ParseKey([]string{v})
		if err != nil {
			if !errors.Is(err, ErrMalformedKey) {
				t.Fatalf("error %v is not ErrMalformedKey", err)
			}
			return
		}
		if key == "" || len(key) > MaxKeyLen {
			t.Fatalf("key of %d bytes", len(key))
		}
		for i := 0; i < len(key); i++ {
			if key[i] < ' ' || key[i] > '~' {
				t.Fatalf("key %q has byte %q", key, key[i])
			}
		}
	})
}
