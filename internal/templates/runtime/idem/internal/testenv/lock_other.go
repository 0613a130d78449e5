//go:build !unix

package testenv

import "testing"

// LockCluster would serialise the tests that share the test cluster across processes; without
// flock it does nothing, so run the packages that use the cluster one at a time (go test -p 1).
func LockCluster(t testing.TB, exclusive bool) {}
