package releaseonerror

import (
	"context"
	"net/http"
	"sync"
)

var seating sync.Map

func forwardSeat(ctx context.Context, table string) error { return nil }

// seatParty takes the table with LoadOrStore and leaks it when the
// backend fails: the table stays "being seated" for good.
func seatParty(w http.ResponseWriter, r *http.Request) {
	table := r.PathValue("table")
	if _, busy := seating.LoadOrStore(table, struct{}{}); busy {
		http.Error(w, "table is being seated", http.StatusConflict)
		return
	}
	if err := forwardSeat(r.Context(), table); err != nil {
		http.Error(w, "floor plan unavailable", http.StatusBadGateway) // want `this 502 response leaves the key claimed by LoadOrStore at syncmap.go:17 held`
		return
	}
	seating.Delete(table)
	w.WriteHeader(http.StatusNoContent)
}

// seatPartyReleasing gives the table back on every path.
func seatPartyReleasing(w http.ResponseWriter, r *http.Request) {
	table := r.PathValue("table")
	if _, busy := seating.LoadOrStore(table, struct{}{}); busy {
		http.Error(w, "table is being seated", http.StatusConflict)
		return
	}
	defer seating.Delete(table)
	if err := forwardSeat(r.Context(), table); err != nil {
		http.Error(w, "floor plan unavailable", http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
