// Package uuid is a minimal copy of github.com/google/uuid's signatures.
package uuid

type UUID [16]byte

func New() UUID                            { return UUID{} }
func NewString() string                    { return "" }
func NewRandom() (UUID, error)             { return UUID{}, nil }
func NewV7() (UUID, error)                 { return UUID{}, nil }
func Must(uuid UUID, err error) UUID       { return uuid }
func Parse(s string) (UUID, error)         { return UUID{}, nil }
func NewSHA1(space UUID, data []byte) UUID { return UUID{} }
func (uuid UUID) String() string           { return "" }

var NameSpaceURL = UUID{}

func NewMD5(space UUID, data []byte) UUID { return UUID{} }
