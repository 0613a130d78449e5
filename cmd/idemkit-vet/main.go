// Command idemkit-vet is idemkit's audit checks and nothing else, for
// go vet -vettool in CI where speed matters:
//
//	go vet -vettool=$(command -v idemkit-vet) ./...
//
// go vet starts its tool once for every package it analyses, dependencies
// included, so the tool's start-up is paid thousands of times. idemkit
// itself links the interactive form and glamour's renderer, whose package
// initialisation (chroma's styles and lexers) costs about 30 ms a process;
// this binary links only the analyzers. Its findings are idemkit's: both
// run the same audit.Analyzers.
package main

import "github.com/idemkit/idemkit/internal/audit"

func main() {
	audit.VetMain()
}
