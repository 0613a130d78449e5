package cacheresponse_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/cacheresponse"
	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
)

func Test(t *testing.T) {
	analysistest.Run(t, audittest.Dir(t), cacheresponse.Analyzer, "cacheresponse")
}
