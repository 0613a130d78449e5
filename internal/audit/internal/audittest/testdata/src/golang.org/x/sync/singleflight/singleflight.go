// Package singleflight is a copy of the signatures of
// golang.org/x/sync/singleflight that the checks read.
package singleflight

type Group struct{}

type Result struct {
	Val    any
	Err    error
	Shared bool
}

func (g *Group) Do(key string, fn func() (any, error)) (v any, err error, shared bool) {
	v, err = fn()
	return v, err, false
}

func (g *Group) DoChan(key string, fn func() (any, error)) <-chan Result { return nil }

func (g *Group) Forget(key string) {}
