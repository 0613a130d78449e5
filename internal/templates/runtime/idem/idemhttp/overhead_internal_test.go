package idemhttp

import (
	"strings"
	"testing"
)

// TestTrimBlanks: trimBlanks cuts what strings.Trim(v, " \t") cuts, and nothing else.
func TestTrimBlanks(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", " ", "\t", " \t ", "a", " a", "a ", "\ta\t", " \t a b \t ", "\n a \n", "\"k\"\t", "a\tb", "\r\t x \v"} {
		if got, want := trimBlanks(v), strings.Trim(v, " \t"); got != want {
			t.Errorf("trimBlanks(%q) = %q, want %q", v, got, want)
		}
	}
}

// TestBareKeyBytes: an unquoted key takes exactly the visible ASCII bytes but the quote, comma,
// semicolon and backslash, wherever they stand in it.
func TestBareKeyBytes(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		want := c > ' ' && c < 0x7f && !strings.ContainsRune(`",;\`, rune(c))
		b := string([]byte{byte(c)})
		for _, v := range []string{b, "a" + b + "b", "ab" + b} {
			if (c == ' ' || c == '\t') && v != "a"+b+"b" || v == `"` {
				continue // blanks around a key are trimmed; a quote first starts a quoted key
			}
			if _, err := ParseKey([]string{v}); (err == nil) != want {
				t.Errorf("ParseKey(%q) = %v, want accepted %v", v, err, want)
			}
		}
	}
}

// BenchmarkParseKey parses an unquoted UUID key, the most common kind.
func BenchmarkParseKey(b *testing.B) {
	v := []string{"8e03978e-40d5-43e8-bc93-6894a57f9324"}
	for b.Loop() {
		if _, err := ParseKey(v); err != nil {
			b.Fatal(err)
		}
	}
}
