// Package audit holds the suite of idemkit's go/analysis checks and the
// drivers that run them in-process (idemkit audit) and under go vet.
package audit

import (
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/attemptkey"
	"github.com/idemkit/idemkit/internal/audit/cacheresponse"
	"github.com/idemkit/idemkit/internal/audit/checkthenact"
	"github.com/idemkit/idemkit/internal/audit/releaseonerror"
)

// Analyzers is the suite, in the order findings are documented. Names are a
// contract: they are the keys of go vet -json output.
var Analyzers = []*analysis.Analyzer{
	checkthenact.Analyzer,
	attemptkey.Analyzer,
	releaseonerror.Analyzer,
	cacheresponse.Analyzer,
}
