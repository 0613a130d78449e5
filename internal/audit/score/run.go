package score

import (
	"context"
	"fmt"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/driver"
)

// Run audits the module in dir with analyzers, in process as idemkit audit
// does, and scores the findings against the module's scenarios. Packages
// that did not load are returned beside the report, which scores the rest:
// their bugs count as missed.
func Run(ctx context.Context, dir string, analyzers []*analysis.Analyzer) (*Report, []*driver.PackageError, error) {
	checks := make([]string, len(analyzers))
	for i, a := range analyzers {
		checks[i] = a.Name
	}
	c, err := Parse(dir, checks)
	if err != nil {
		return nil, nil, err
	}
	res, err := driver.Run(ctx, driver.Options{Dir: c.Dir, Analyzers: analyzers})
	if err != nil {
		return nil, nil, fmt.Errorf("audit %s: %w", dir, err)
	}
	return Score(c, res.Findings), res.Errors, nil
}
