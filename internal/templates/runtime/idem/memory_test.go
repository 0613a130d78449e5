package idem_test

import (
	"testing"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, newMemory)
}
