package effect_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
	"github.com/idemkit/idemkit/internal/audit/internal/effect"
)

// TestSummaries pins the summaries exported as facts: which records a
// function reads, writes or claims, from which parameters the key comes,
// and which reads it keeps to itself.
func TestSummaries(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), effect.Analyzer, "summaries")
}
