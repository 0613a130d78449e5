package cacheresponse_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/idemkit/idemkit/internal/audit/cacheresponse"
	"github.com/idemkit/idemkit/internal/audit/internal/audittest"
)

func Test(t *testing.T) {
	t.Parallel()
	analysistest.Run(t, audittest.Dir(t), cacheresponse.Analyzer, "cacheresponse", "scriptdone")
}

// TestCatalogExamples checks that idemkit rules shows a bad example the
// check reports and a good one it does not.
func TestCatalogExamples(t *testing.T) {
	t.Parallel()
	bad, good := audittest.Examples(t, cacheresponse.Analyzer, `
import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

type Handler struct {
	rdb    *redis.Client
	orders interface {
		Create(ctx context.Context, body io.Reader) (*Order, error)
	}
}

type Order struct{ ID string }

type StoredResponse struct {
	Status int
	Body   []byte
}

var (
	_ = json.Marshal
	_ = time.Hour
	_ = StoredResponse{}
)
`)
	if len(bad) != 1 || len(good) != 0 {
		t.Errorf("catalogue examples: %d findings in the bad one (want 1), %d in the good one (want 0): %v %v", len(bad), len(good), bad, good)
	}
}
