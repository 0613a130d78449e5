// Package helpers holds a user's key helpers, annotated.
package helpers

import "context"

// ClaimKey takes key for this worker.
//
//idemkit:claim
func ClaimKey(ctx context.Context, key string) (bool, error) { return true, nil } // want ClaimKey:"idemkit:claim"

// ReleaseKey gives key back.
//
//idemkit:release the retry may run at once
func ReleaseKey(ctx context.Context, key string) error { return nil } // want ReleaseKey:"idemkit:release"

// Finish stores the result, or gives the key back on failure.
//
//idemkit:complete
//idemkit:release
func Finish(ctx context.Context, key string, result []byte) error { return nil } // want Finish:"idemkit:release|complete"

// Lookup only reads: "idemkit:claim" in prose is no directive, nor is
// a misspelt one.
//
// idemkit:claim
//
//idemkit:claims
func Lookup(ctx context.Context, key string) ([]byte, error) { return nil, nil }

// Keys is a store of keys.
type Keys interface {
	// Take claims key.
	//
	//idemkit:claim
	Take(ctx context.Context, key string) error // want Take:"idemkit:claim"

	Peek(ctx context.Context, key string) error
}

// Generic claims in a generic helper.
//
//idemkit:claim
func Generic[T any](ctx context.Context, key T) error { return nil } // want Generic:"idemkit:claim"
