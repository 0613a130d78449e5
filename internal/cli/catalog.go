package cli

import (
	"os"

	"github.com/idemkit/idemkit/internal/rules"
)

// loadCatalog returns the embedded catalogue with the team's overrides:
// the --rules file when given, else .idemkit.yaml at the repository root
// when there is one. A bad file is a usage error naming file, line and field.
func loadCatalog(f *Factory, rulesFile string) (*rules.Catalog, error) {
	path := ""
	if rulesFile != "" {
		path = f.resolve(rulesFile)
	} else if p, ok := rules.FindRepoConfig(f.Dir); ok {
		path = p
	}
	if path == "" {
		return rules.Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usageErr("read catalogue overrides: %v", err)
	}
	cat, err := rules.LoadOverrides(f.rel(path), data)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return cat, nil
}
