package checkthenact_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/checkthenact"
	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
)

func Test(t *testing.T) {
	analysistest.RunWithSuggestedFixes(t, audittest.Dir(t), checkthenact.Analyzer, "checkthenact", "effects", "luakept", "lockcheck", "luapkgs", "modulework")
}
