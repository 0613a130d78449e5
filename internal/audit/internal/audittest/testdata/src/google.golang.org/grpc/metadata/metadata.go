// Package metadata is a minimal copy of google.golang.org/grpc/metadata's signatures.
package metadata

import "context"

type MD map[string][]string

func Pairs(kv ...string) MD                                                     { return MD{} }
func NewOutgoingContext(ctx context.Context, md MD) context.Context             { return ctx }
func AppendToOutgoingContext(ctx context.Context, kv ...string) context.Context { return ctx }
