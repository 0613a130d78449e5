//go:build race

package idem

// raceEnabled: the race detector is on, and sync.Pool drops what it is given at random, so
// counts of allocations say nothing about the code.
const raceEnabled = true
