// Package ksuid is a minimal copy of github.com/segmentio/ksuid's signatures.
package ksuid

import "time"

type KSUID [20]byte

func New() KSUID                                           { return KSUID{} }
func NewRandom() (KSUID, error)                            { return KSUID{}, nil }
func NewRandomWithTime(t time.Time) (KSUID, error)         { return KSUID{}, nil }
func Parse(s string) (KSUID, error)                        { return KSUID{}, nil }
func FromParts(t time.Time, payload []byte) (KSUID, error) { return KSUID{}, nil }
func (i KSUID) String() string                             { return "" }
func (i KSUID) Time() time.Time                            { return time.Time{} }
