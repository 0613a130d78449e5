package releaseonerror_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/releaseonerror"
)

func Test(t *testing.T) {
	t.Parallel()
	analysistest.RunWithSuggestedFixes(t, audittest.Dir(t), releaseonerror.Analyzer, "releaseonerror", "scriptclaims")
}

// TestCatalogExamples checks that idemkit rules shows a bad example the
// check reports and a good one it does not.
func TestCatalogExamples(t *testing.T) {
	t.Parallel()
	bad, good := audittest.Examples(t, releaseonerror.Analyzer, `
import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

type Handler struct {
	rdb *redis.Client
	psp interface {
		Charge(ctx context.Context, req ChargeRequest) error
	}
}

type ChargeRequest struct{ Amount int64 }

var _ = time.Hour
`)
	if len(bad) != 1 || len(good) != 0 {
		t.Errorf("catalogue examples: %d findings in the bad one (want 1), %d in the good one (want 0): %v %v", len(bad), len(good), bad, good)
	}
}
