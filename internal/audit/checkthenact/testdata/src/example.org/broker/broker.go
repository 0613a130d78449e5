// Package broker stands for a third-party client library: an interface of
// a dependency, whose methods' work (often idempotent) is not the module's.
package broker

import "context"

// Registry records the names of queues in use.
type Registry interface {
	Register(ctx context.Context, name string) error
}
