// Package handoff makes go vet -vettool=idemkit as fast as the slim
// idemkit-vet: when go vet starts idemkit as its vet tool and idemkit-vet
// is installed beside it, idemkit replaces itself with idemkit-vet
// (execve) during package initialisation, before the packages that make
// idemkit's start-up slow have run their init functions.
//
// go vet starts its tool once for every package it analyses, dependencies
// included. idemkit links the interactive form and glamour's renderer,
// whose package initialisation (chroma's lexers and styles, bluemonday,
// goldmark) costs about 30 ms a process; idemkit-vet links only the
// analyzers. Go initialises packages in import-path order as soon as their
// imports are ready (the spec's rule since Go 1.21), and this package
// imports syscall alone, so its init runs a millisecond or so into the
// process, long before chroma's.
//
// The hand-off happens only on Linux, only for the vet protocol (see
// IsVetProtocol), only when an executable named idemkit-vet sits in the
// directory of the running idemkit (as make build and go install
// github.com/idemkit/idemkit/cmd/... leave them), and never when
// IDEMKIT_VET_INPROCESS is set to a non-empty value. Otherwise idemkit
// runs the checks itself, with the same results. idemkit-vet is told the
// path of the idemkit it replaces in IDEMKIT_VET_PARENT and refuses to
// answer go vet's -V=full when the two are different builds, so a stale
// idemkit-vet cannot answer for a newer idemkit.
//
// This package must import nothing but syscall: every import is
// initialised before it, and one that imports os lets the slow packages
// go first.
package handoff

// Environment variables of the hand-off.
const (
	// EnvInProcess, when non-empty, keeps the checks inside idemkit.
	EnvInProcess = "IDEMKIT_VET_INPROCESS"
	// EnvParent carries the path of the idemkit that handed off.
	EnvParent = "IDEMKIT_VET_PARENT"
	// Sibling is the file name of the slim vet tool.
	Sibling = "idemkit-vet"
)

// IsVetProtocol reports whether args (without the program name) are go
// vet invoking its vet tool: "-flags", "-V=full" (or another -V=), or
// flags followed by a single *.cfg file. idemkit's main checks it before
// cobra, so that vet's flags never reach the CLI.
func IsVetProtocol(args []string) bool {
	if len(args) == 0 {
		return false
	}
	for _, a := range args[:len(args)-1] {
		if !hasPrefix(a, "-") {
			return false
		}
	}
	last := args[len(args)-1]
	switch {
	case last == "-flags", hasPrefix(last, "-V="):
		return true
	case hasSuffix(last, ".cfg") && !hasPrefix(last, "-"):
		return true
	}
	return false
}

// hasPrefix and hasSuffix are strings' own; importing strings would delay
// this package's init.
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func hasSuffix(s, p string) bool { return len(s) >= len(p) && s[len(s)-len(p):] == p }
