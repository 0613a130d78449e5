// Package quietstart keeps idemkit's start-up from querying the terminal.
//
// Bubble Tea's package initialisation asks Lip Gloss whether the terminal
// background is dark, and Lip Gloss asks the terminal: it writes
// "ESC ] 11 ; ?" and "ESC [ 6 n" to standard output and waits up to five
// seconds for the answer. A pseudo-terminal with nothing behind it (script,
// CI runners, editors' shells) never answers, so every command, idemkit
// version included, would take five seconds and leave the escapes in the
// log. Only the interactive form may ask, and only when it runs.
//
// The init function of this package sets TERM to "dumb", for which termenv
// never queries, and Restore puts the caller's TERM back; main calls it
// first. Go initialises packages in import-path order as soon as their
// imports are ready (the spec's rule since Go 1.21): this package imports
// syscall alone, so its init runs before the os package's, and Bubble Tea,
// which needs os, comes later. Lip Gloss keeps the answer it got during
// initialisation (a dark background, as on any output that is not a
// terminal) until the form asks the terminal again.
//
// This package must import nothing but syscall and internal/handoff,
// which imports syscall alone (see there). handoff's init runs first, so a
// go vet run it hands over to idemkit-vet keeps the caller's TERM.
package quietstart

import (
	"syscall"

	_ "github.com/idemkit/idemkit/internal/handoff" // initialised first: see the package doc
)

// The caller's TERM, put back by Restore.
var (
	term    string
	hadTerm bool
)

func init() {
	term, hadTerm = syscall.Getenv("TERM")
	_ = syscall.Setenv("TERM", "dumb")
}

// Restore puts back the TERM the process was started with. Call it before
// anything reads TERM for real: rendering, the form, child processes.
func Restore() {
	if hadTerm {
		_ = syscall.Setenv("TERM", term)
		return
	}
	_ = syscall.Unsetenv("TERM")
}
