// Package uuid is a minimal copy of github.com/gofrs/uuid's signatures.
package uuid

import "time"

type UUID [16]byte

var NamespaceURL = UUID{}

func NewV1() (UUID, error)                       { return UUID{}, nil }
func NewV3(ns UUID, name string) UUID            { return UUID{} }
func NewV4() (UUID, error)                       { return UUID{}, nil }
func NewV5(ns UUID, name string) UUID            { return UUID{} }
func NewV6() (UUID, error)                       { return UUID{}, nil }
func NewV7() (UUID, error)                       { return UUID{}, nil }
func NewV7AtTime(atTime time.Time) (UUID, error) { return UUID{}, nil }
func Must(u UUID, err error) UUID                { return u }
func FromString(text string) (UUID, error)       { return UUID{}, nil }
func (u UUID) String() string                    { return "" }
func (u UUID) Bytes() []byte                     { return u[:] }

type Generator interface {
	NewV4() (UUID, error)
	NewV5(ns UUID, name string) UUID
	NewV7() (UUID, error)
}

type Gen struct{}

func NewGen() *Gen                             { return &Gen{} }
func (g *Gen) NewV4() (UUID, error)            { return UUID{}, nil }
func (g *Gen) NewV5(ns UUID, name string) UUID { return UUID{} }
func (g *Gen) NewV7() (UUID, error)            { return UUID{}, nil }

var DefaultGenerator Generator = NewGen()
