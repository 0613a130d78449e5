// Command golangci is the golangci-lint that `golangci-lint custom` builds
// from docs/golangci-lint.md's .custom-gcl.yml: golangci-lint's own main
// with this file, the one custom generates, importing idemkit's plugin.
//
// custom clones golangci-lint's repository at the configured version;
// make golangci takes the same main.go from that version's module, served
// by the Go module proxy, instead (see mk/golangci.mk). main.go is copied
// in at build time and not committed.
package main

import (
	_ "github.com/idemkit/idemkit/golangci"
)
