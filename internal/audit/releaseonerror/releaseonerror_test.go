package releaseonerror_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/releaseonerror"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, audittest.Dir(t), releaseonerror.Analyzer, "releaseonerror")
}
