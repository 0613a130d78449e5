package attemptkey

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A franz-go record is a Kafka message: a fetch loop delivers it again
// after a crash before the commit.
func consumeRecords(ctx context.Context, cl *kgo.Client, c *charges) {
	for ctx.Err() == nil {
		fetches := cl.PollFetches(ctx)
		fetches.EachRecord(func(r *kgo.Record) {
			var o chargeOrder
			_ = json.Unmarshal(r.Value, &o)
			_ = c.charge(ctx, uuid.NewString(), o.Amount) // want `inside the message handler at franz.go:\d+ reaches charge`
		})
		_ = cl.CommitUncommittedOffsets(ctx)
	}
}

func consumeRecordIter(ctx context.Context, cl *kgo.Client, c *charges) {
	for ctx.Err() == nil {
		iter := cl.PollFetches(ctx).RecordIter()
		for !iter.Done() {
			r := iter.Next()
			var o chargeOrder
			_ = json.Unmarshal(r.Value, &o)
			_ = c.charge(ctx, uuid.NewString(), o.Amount) // want `inside the loop over received messages at franz.go:\d+ reaches charge`
		}
	}
}

func consumeRecordsByOffset(ctx context.Context, cl *kgo.Client, c *charges) {
	for ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var o chargeOrder
			_ = json.Unmarshal(r.Value, &o)
			_ = c.charge(ctx, fmt.Sprintf("%s-%d-%d", r.Topic, r.Partition, r.Offset), o.Amount)
		})
	}
}
