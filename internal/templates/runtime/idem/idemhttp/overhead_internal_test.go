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
