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

// TestGenerated checks that code a generator wrote (sqlboiler's models,
// whose insert cache is a map read and then stored) is not reported: what
// it does is read where it is called.
func TestGenerated(t *testing.T) {
	analysistest.Run(t, audittest.Dir(t), checkthenact.Analyzer, "example.com/boiled/models")
}
