package idem_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem/storetest"
)

func newMemory(testing.TB) idem.Store { return idem.NewMemoryStore(idem.MemoryOptions{}) }

// BenchmarkMemoryStore runs the stores' benchmarks on a memory store with room for every record
// they write: the new-key run keeps one an hour per iteration, more than the default bound.
func BenchmarkMemoryStore(b *testing.B) {
	storetest.Benchmark(b, func(testing.TB) idem.Store { return newRoomyMemory() })
}

func newRoomyMemory() *idem.MemoryStore {
	return idem.NewMemoryStore(idem.MemoryOptions{MaxEntries: 1 << 30, MaxBytes: 1 << 40})
}

// BenchmarkFingerprint measures the per-request cost of the canonical fingerprint of a typical
// JSON body with one excluded field.
func BenchmarkFingerprint(b *testing.B) {
	body := []byte(`{"customer":"cus_123","amount":4200,"currency":"eur","timestamp":"2026-01-01T00:00:00Z",` +
		`"items":[{"sku":"a","qty":1,"price":1200},{"sku":"b","qty":2,"price":1500}],"metadata":{"order":"o-9"}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := idem.Fingerprint("POST", "/charges", body, "application/json", []string{"timestamp"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDoNew measures Do's own overhead over the memory store for a new key.
func BenchmarkDoNew(b *testing.B) {
	s := newRoomyMemory()
	work := func(context.Context) (idem.Response, error) { return idem.Response{Status: 200}, nil }
	i := 0
	for b.Loop() {
		i++
		if _, err := idem.Do(b.Context(), s, strconv.Itoa(i), "fp", work); err != nil {
			b.Fatal(err)
		}
	}
}
