package attemptkey_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/attemptkey"
	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
)

func Test(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), attemptkey.Analyzer, "attemptkey", "example.com/localbus", "example.com/asynqtasks")
}

// TestCatalogExamples checks that idemkit rules shows a bad example the
// check reports and a good one it does not.
func TestCatalogExamples(t *testing.T) {
	t.Parallel()
	bad, good := audittest.Examples(t, attemptkey.Analyzer, `
import (
	"context"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v82"
)

var _ = uuid.NewString
`)
	if len(bad) != 1 || len(good) != 0 {
		t.Fatalf("bad example: %d findings %v; good example: %d findings %v", len(bad), bad, len(good), good)
	}
}
