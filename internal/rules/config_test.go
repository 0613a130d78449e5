package rules

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindRepoConfig(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files []string // created under a temp dir; a trailing / makes a directory
		start string
		want  string // "" when none is found
	}{
		{"at the repo root, from deep inside", []string{"repo/.git/", "repo/.idemkit.yaml", "repo/a/b/"}, "repo/a/b", "repo/.idemkit.yaml"},
		{"at a module root", []string{"mod/go.mod", "mod/.idemkit.yaml", "mod/internal/"}, "mod/internal", "mod/.idemkit.yaml"},
		{"the nearest wins", []string{"repo/.git/", "repo/.idemkit.yaml", "repo/svc/.idemkit.yaml", "repo/svc/x/"}, "repo/svc/x", "repo/svc/.idemkit.yaml"},
		{"none above the repo root", []string{".idemkit.yaml", "repo/.git/", "repo/a/"}, "repo/a", ""},
		{"none above the module root", []string{".idemkit.yaml", "mod/go.mod", "mod/a/"}, "mod/a", ""},
		{"a directory of that name is not the file", []string{"repo/.git/", "repo/.idemkit.yaml/", "repo/a/"}, "repo/a", ""},
		{"started at the root itself", []string{"repo/.git", "repo/.idemkit.yaml"}, "repo", "repo/.idemkit.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for _, f := range tt.files {
				p := filepath.Join(root, f)
				if f[len(f)-1] == '/' {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := FindRepoConfig(filepath.Join(root, tt.start))
			want := ""
			if tt.want != "" {
				want = filepath.Join(root, tt.want)
			}
			if got != want || ok != (tt.want != "") {
				t.Errorf("FindRepoConfig = %q, %v; want %q", got, ok, want)
			}
		})
	}
}
