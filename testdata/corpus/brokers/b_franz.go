package brokers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/google/uuid"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ChargeFeed consumes charge commands with franz-go, committing offsets
// after each poll: a record fetched again after a crash before the
// commit is charged again unless its key is the record's own.
type ChargeFeed struct {
	Client   *kgo.Client
	Payments *Payments
	Log      *slog.Logger
}

// Run charges each record under a key drawn for it.
//
// corpus: bug attemptkey
// modelled on: twmb/franz-go examples/goroutine_per_partition_consuming/autocommit_normal/main.go (PollFetches, then EachRecord over what came back)
func (f *ChargeFeed) Run(ctx context.Context) error {
	for {
		fetches := f.Client.PollFetches(ctx)
		if fetches.IsClientClosed() {
			return nil
		}
		fetches.EachRecord(func(r *kgo.Record) {
			var cmd chargeCommand
			if err := json.Unmarshal(r.Value, &cmd); err != nil {
				f.Log.Error("bad command", "offset", r.Offset, "err", err)
				return
			}
			if err := f.Payments.Charge(ctx, uuid.NewString(), cmd.OrderID, cmd.Amount); err != nil {
				f.Log.Error("charge", "order", cmd.OrderID, "err", err)
			}
		})
		if err := f.Client.CommitUncommittedOffsets(ctx); err != nil {
			f.Log.Error("commit", "err", err)
		}
	}
}

// RunByOffset keys each charge by the record's place in its partition.
//
// corpus: ok attemptkey
// modelled on: twmb/franz-go examples/goroutine_per_partition_consuming/autocommit_normal/main.go (PollFetches, then EachRecord over what came back)
func (f *ChargeFeed) RunByOffset(ctx context.Context) error {
	for {
		fetches := f.Client.PollFetches(ctx)
		if fetches.IsClientClosed() {
			return nil
		}
		iter := fetches.RecordIter()
		for !iter.Done() {
			r := iter.Next()
			var cmd chargeCommand
			if err := json.Unmarshal(r.Value, &cmd); err != nil {
				f.Log.Error("bad command", "offset", r.Offset, "err", err)
				continue
			}
			key := fmt.Sprintf("%s/%d/%d", r.Topic, r.Partition, r.Offset)
			if err := f.Payments.Charge(ctx, key, cmd.OrderID, cmd.Amount); err != nil {
				f.Log.Error("charge", "order", cmd.OrderID, "err", err)
			}
		}
		if err := f.Client.CommitUncommittedOffsets(ctx); err != nil {
			f.Log.Error("commit", "err", err)
		}
	}
}
