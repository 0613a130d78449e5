//go:build !race

package idem

// raceEnabled: see race_test.go.
const raceEnabled = false
