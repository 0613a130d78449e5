package brokers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// PollCharges polls the charge-commands topic and commits each message
// once charged. Its key is the clock's reading: a message polled again
// after a crash before the commit is charged a second time.
//
// corpus: bug attemptkey
// modelled on: confluentinc/confluent-kafka-go examples/consumer_example/consumer_example.go (a Poll loop switching on the event's type)
func PollCharges(ctx context.Context, c *kafka.Consumer, p *Payments, log *slog.Logger) error {
	for ctx.Err() == nil {
		ev := c.Poll(100)
		switch e := ev.(type) {
		case *kafka.Message:
			var cmd chargeCommand
			if err := json.Unmarshal(e.Value, &cmd); err != nil {
				log.Error("bad command", "err", err)
				continue
			}
			key := fmt.Sprintf("charge-%s-%d", cmd.OrderID, time.Now().UnixNano())
			if err := p.Charge(ctx, key, cmd.OrderID, cmd.Amount); err != nil {
				log.Error("charge", "order", cmd.OrderID, "err", err)
				continue
			}
			if _, err := c.CommitMessage(e); err != nil {
				log.Error("commit", "err", err)
			}
		case kafka.Error:
			log.Error("kafka", "err", e)
		}
	}
	return ctx.Err()
}

// PollChargesByOffset keys the charge by where the message sits in its
// partition, the same however often it is polled.
//
// corpus: ok attemptkey
// modelled on: confluentinc/confluent-kafka-go examples/consumer_example/consumer_example.go (a Poll loop switching on the event's type)
func PollChargesByOffset(ctx context.Context, c *kafka.Consumer, p *Payments, log *slog.Logger) error {
	for ctx.Err() == nil {
		ev := c.Poll(100)
		m, ok := ev.(*kafka.Message)
		if !ok {
			continue
		}
		var cmd chargeCommand
		if err := json.Unmarshal(m.Value, &cmd); err != nil {
			log.Error("bad command", "err", err)
			continue
		}
		tp := m.TopicPartition
		key := fmt.Sprintf("charge-%s-%d-%d", *tp.Topic, tp.Partition, tp.Offset)
		if err := p.Charge(ctx, key, cmd.OrderID, cmd.Amount); err != nil {
			log.Error("charge", "order", cmd.OrderID, "err", err)
			continue
		}
		if _, err := c.CommitMessage(m); err != nil {
			log.Error("commit", "err", err)
		}
	}
	return ctx.Err()
}
