package redis

import "context"

// GETSET and the sorted-set commands, beside the library copy's
// commands: claims made by swapping a value in, and dedup windows kept
// in a sorted set, need them.

func (c cmdable) GetSet(ctx context.Context, key string, value interface{}) *StringCmd { return nil }

// Z is a sorted set member with its score.
type Z struct {
	Score  float64
	Member interface{}
}

// ZAddArgs are ZADD's options and members.
type ZAddArgs struct {
	NX      bool
	XX      bool
	LT      bool
	GT      bool
	Ch      bool
	Members []Z
}

type FloatCmd struct{}

func (cmd *FloatCmd) Result() (float64, error) { return 0, nil }
func (cmd *FloatCmd) Val() float64             { return 0 }
func (cmd *FloatCmd) Err() error               { return nil }

func (c cmdable) ZAdd(ctx context.Context, key string, members ...Z) *IntCmd           { return nil }
func (c cmdable) ZAddNX(ctx context.Context, key string, members ...Z) *IntCmd         { return nil }
func (c cmdable) ZAddXX(ctx context.Context, key string, members ...Z) *IntCmd         { return nil }
func (c cmdable) ZAddArgs(ctx context.Context, key string, args ZAddArgs) *IntCmd      { return nil }
func (c cmdable) ZScore(ctx context.Context, key, member string) *FloatCmd             { return nil }
func (c cmdable) ZRank(ctx context.Context, key, member string) *IntCmd                { return nil }
func (c cmdable) ZRem(ctx context.Context, key string, members ...interface{}) *IntCmd { return nil }
func (c cmdable) ZRemRangeByScore(ctx context.Context, key, min, max string) *IntCmd   { return nil }
