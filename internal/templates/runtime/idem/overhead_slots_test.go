package idem

import (
	"math/rand/v2"
	"testing"
)

// TestSlotTable: random sets and deletes of hashes that crowd a few home cells (and wrap round
// the table's end) leave the table answering as a map does, with every cell reachable from its
// home without an empty cell on the way, through growth and deletes that shift cells back.
func TestSlotTable(t *testing.T) {
	t.Parallel()
	for _, spread := range []int{3, 20, 200} {
		rng := rand.New(rand.NewPCG(uint64(spread), 7))
		tab := slotTable{cells: make([]slotCell, minSlotCells)}
		want := map[uint64]int{}
		hash := func() uint64 {
			// Low bits from a few values (the home cells), high bits from more: many hashes share
			// a home, and homes near the end of the table make probes wrap round.
			low := uint64(rng.IntN(4))
			if rng.IntN(2) == 0 {
				low = uint64(1<<20 - 1 - rng.IntN(4))
			}
			return uint64(rng.IntN(spread))<<20 | low
		}
		for step := range 10000 {
			h := hash()
			switch rng.IntN(3) {
			case 0, 1:
				slot := rng.IntN(1000)
				tab.set(h, slot)
				want[h] = slot
			case 2:
				tab.del(h)
				delete(want, h)
			}
			if tab.used != len(want) {
				t.Fatalf("spread %d step %d: used %d, want %d", spread, step, tab.used, len(want))
			}
			if step%97 != 0 && step < 9990 {
				continue
			}
			for h, slot := range want {
				if got := tab.get(h); got != slot {
					t.Fatalf("spread %d step %d: get(%#x) = %d, want %d", spread, step, h, got, slot)
				}
			}
			for range 20 {
				if h := hash(); tab.get(h) >= 0 != hasKey(want, h) {
					t.Fatalf("spread %d step %d: get(%#x) = %d, want it absent", spread, step, h, tab.get(h))
				}
			}
			mask := len(tab.cells) - 1
			n := 0
			for p, c := range tab.cells {
				if c.slot == 0 {
					continue
				}
				n++
				for q := int(c.hash) & mask; q != p; q = (q + 1) & mask {
					if tab.cells[q].slot == 0 {
						t.Fatalf("spread %d step %d: cell %d (hash %#x) is cut off from its home by empty cell %d", spread, step, p, c.hash, q)
					}
				}
			}
			if n != len(want) || 2*n > len(tab.cells) {
				t.Fatalf("spread %d step %d: %d cells in use of %d, want %d at most half", spread, step, n, len(tab.cells), len(want))
			}
		}
	}
}

func hasKey(m map[uint64]int, k uint64) bool { _, ok := m[k]; return ok }
