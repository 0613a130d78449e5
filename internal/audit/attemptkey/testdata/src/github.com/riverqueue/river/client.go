package river

import "context"

// Client is a minimal copy of river's client, which stores jobs for its
// workers.
type Client[TTx any] struct{}

type UniqueOpts struct{ ByArgs bool }

type InsertOpts struct {
	Queue      string
	UniqueOpts UniqueOpts
}

type JobInsertResult struct{ UniqueSkippedAsDuplicate bool }

func (c *Client[TTx]) Insert(ctx context.Context, args JobArgs, opts *InsertOpts) (*JobInsertResult, error) {
	return nil, nil
}

func (c *Client[TTx]) InsertTx(ctx context.Context, tx TTx, args JobArgs, opts *InsertOpts) (*JobInsertResult, error) {
	return nil, nil
}

// InsertManyParams is one job of a batch insert.
type InsertManyParams struct {
	Args       JobArgs
	InsertOpts *InsertOpts
}

func (c *Client[TTx]) InsertMany(ctx context.Context, params []InsertManyParams) ([]*JobInsertResult, error) {
	return nil, nil
}
