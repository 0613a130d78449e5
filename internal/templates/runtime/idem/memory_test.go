package idem_test

import (
	"testing"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) idem.Store { return idem.NewMemoryStore(idem.MemoryOptions{}) })
}
