package audit

import "testing"

// TestInert pins which dependencies a facts-only vet run treats like the
// standard library (ctrlflow's facts only): infrastructure libraries, and
// never a store client or a module's own packages.
func TestInert(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		"golang.org/x/tools/go/analysis":        true,
		"github.com/charmbracelet/huh":          true,
		"github.com/spf13/cobra":                true,
		"gopkg.in/yaml.v3":                      true,
		"github.com/redis/go-redis/v9":          false,
		"github.com/jackc/pgx/v5":               false,
		"github.com/stripe/stripe-go/v82":       false,
		"github.com/idemkit/idemkit/internal/x": false,
		"golang.org/x/toolsmith":                false,
	} {
		if got := inert(path); got != want {
			t.Errorf("inert(%q) = %v, want %v", path, got, want)
		}
	}
}
