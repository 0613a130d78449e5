// Package rueidiscompat is a minimal copy of github.com/redis/rueidis/rueidiscompat's signatures.
package rueidiscompat

import (
	"context"
	"time"

	"github.com/redis/rueidis"
)

type StringCmd struct{}

func (cmd *StringCmd) Result() (string, error) { return "", nil }

type BoolCmd struct{}

func (cmd *BoolCmd) Result() (bool, error) { return false, nil }

type StatusCmd struct{}

func (cmd *StatusCmd) Err() error { return nil }

type Cmdable interface {
	Get(ctx context.Context, key string) *StringCmd
	Set(ctx context.Context, key string, value any, expiration time.Duration) *StatusCmd
	SetNX(ctx context.Context, key string, value any, expiration time.Duration) *BoolCmd
}

func NewAdapter(client rueidis.Client) Cmdable { return nil }
