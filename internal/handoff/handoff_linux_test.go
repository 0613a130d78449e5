package handoff

import "testing"

func TestDir(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/usr/local/bin/idemkit": "/usr/local/bin",
		"/idemkit":               "/",
		"/a/b/":                  "/a/b",
	} {
		if got := dir(path); got != want {
			t.Errorf("dir(%q) = %q, want %q", path, got, want)
		}
	}
}
