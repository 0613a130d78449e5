package cli

import (
	"errors"
	"fmt"

	"github.com/idemkit/idemkit/internal/genplan"
)

// Exit codes shared by every command (DESIGN.md, CLI contract; the
// package doc says which failure gets which).
const (
	ExitOK       = 0
	ExitFindings = 1 // audit findings, a rejected design, an invalid spec, drift
	ExitUsage    = 2 // bad flags or bad input
	ExitFailure  = 3 // could not be carried out: a read or write, a load, go list
	ExitAborted  = 130
)

// ExitError carries the exit code a failure should produce.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// usageErr marks err as bad input (exit 2).
func usageErr(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// errSilent is returned when the command has already said everything and
// only the exit code is left to set.
var errSilent = errors.New("")

// exitCode maps an error from a command to the process exit code, by its
// type: an error nothing classified is a failure, not bad usage.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var (
		ee       *ExitError
		input    *genplan.InputError
		conflict *genplan.ConflictError
		drift    *genplan.DriftError
	)
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.As(err, &input), errors.As(err, &conflict):
		return ExitUsage
	case errors.As(err, &drift):
		return ExitFindings
	}
	return ExitFailure
}
