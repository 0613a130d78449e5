// Package streams holds the wallet service's stream consumers: Kafka
// readers for bets and shipments, and RabbitMQ consumers for refunds and
// invoices. Every broker here redelivers.
package streams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/jmoiron/sqlx"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"
	"golang.org/x/sync/errgroup"
)

// Bet is a wager or payout event from the game servers.
type Bet struct {
	EventID string `json:"event_id"`
	UserID  string `json:"user_id"`
	Kind    string `json:"kind"` // bet | win
	Cents   int64  `json:"cents"`
}

// Carrier books shipments.
type Carrier interface {
	Book(ctx context.Context, orderID string) error
}

// WalletConsumer reads the bets topic into the wallet database.
type WalletConsumer struct {
	reader  *kafka.Reader
	retry   *kafka.Writer
	db      *sqlx.DB
	rdb     *redis.Client
	sqs     *sqs.Client
	fifoURL string
	carrier Carrier
	log     *slog.Logger
}

func header(m kafka.Message, name string) string {
	for _, h := range m.Headers {
		if h.Key == name {
			return string(h.Value)
		}
	}
	return ""
}

func signed(b Bet) int64 {
	if b.Kind == "bet" {
		return -b.Cents
	}
	return b.Cents
}

// HandleBet applies one bet message to the user's wallet.
//
// corpus: bug checkthenact
// modelled on: OlgaPie/casino-transaction-system internal/consumer/handler.go (FetchMessage, save the transaction, CommitMessages after a successful save)
func (c *WalletConsumer) HandleBet(ctx context.Context, m kafka.Message) error {
	id := header(m, "event-id")
	var n int
	if err := c.db.GetContext(ctx, &n, `SELECT count(*) FROM consumed_events WHERE event_id = $1`, id); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	var b Bet
	if err := json.Unmarshal(m.Value, &b); err != nil {
		return err
	}
	if _, err := c.db.ExecContext(ctx, `UPDATE wallets SET balance_cents = balance_cents + $2 WHERE user_id = $1`,
		b.UserID, signed(b)); err != nil {
		return err
	}
	_, err := c.db.ExecContext(ctx, `INSERT INTO consumed_events (event_id, topic, consumed_at) VALUES ($1, $2, now())`,
		id, m.Topic)
	return err
}

// HandleBetOnce applies one bet message to the user's wallet; the event id
// is inserted with ON CONFLICT in the transaction that moves the balance.
//
// corpus: ok checkthenact
// modelled on: OlgaPie/casino-transaction-system internal/consumer/handler.go (FetchMessage, save the transaction, CommitMessages after a successful save)
func (c *WalletConsumer) HandleBetOnce(ctx context.Context, m kafka.Message) error {
	id := header(m, "event-id")
	var b Bet
	if err := json.Unmarshal(m.Value, &b); err != nil {
		return err
	}
	tx, err := c.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx,
		`INSERT INTO consumed_events (event_id, topic, consumed_at) VALUES ($1, $2, now()) ON CONFLICT (event_id) DO NOTHING`,
		id, m.Topic)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE wallets SET balance_cents = balance_cents + $2 WHERE user_id = $1`,
		b.UserID, signed(b)); err != nil {
		return err
	}
	return tx.Commit()
}

// RunPartitions reads the bets topic with one goroutine per partition
// reader and applies bonus credits, remembering applied events in a set.
//
// corpus: bug checkthenact
// modelled on: alextanhongpin/go-kafka 07-consumer-groups-manualack/main.go (FetchMessage loop with manual CommitMessages)
func (c *WalletConsumer) RunPartitions(ctx context.Context, readers []*kafka.Reader) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, rd := range readers {
		g.Go(func() error {
			for {
				m, err := rd.FetchMessage(ctx)
				if err != nil {
					return err
				}
				id := header(m, "event-id")
				applied, err := c.rdb.SIsMember(ctx, "bonus:applied", id).Result()
				if err != nil {
					return err
				}
				if !applied {
					var b Bet
					if err := json.Unmarshal(m.Value, &b); err == nil {
						if _, err := c.db.ExecContext(ctx,
							`UPDATE wallets SET bonus_cents = bonus_cents + $2 WHERE user_id = $1`, b.UserID, b.Cents/100); err != nil {
							return err
						}
					}
					if err := c.rdb.SAdd(ctx, "bonus:applied", id).Err(); err != nil {
						return err
					}
				}
				if err := rd.CommitMessages(ctx, m); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// RunPartitionsOnce reads the bets topic with one goroutine per partition
// reader and applies bonus credits; SADD's answer says whether this
// goroutine added the event, and a failed credit removes it again.
//
// corpus: ok checkthenact
// modelled on: alextanhongpin/go-kafka 07-consumer-groups-manualack/main.go (FetchMessage loop with manual CommitMessages)
func (c *WalletConsumer) RunPartitionsOnce(ctx context.Context, readers []*kafka.Reader) error {
	g, ctx := errgroup.WithContext(ctx)
	for _, rd := range readers {
		g.Go(func() error {
			for {
				m, err := rd.FetchMessage(ctx)
				if err != nil {
					return err
				}
				id := header(m, "event-id")
				added, err := c.rdb.SAdd(ctx, "bonus:applied", id).Result()
				if err != nil {
					return err
				}
				if added == 1 {
					var b Bet
					if err := json.Unmarshal(m.Value, &b); err == nil {
						if _, err := c.db.ExecContext(ctx,
							`UPDATE wallets SET bonus_cents = bonus_cents + $2 WHERE user_id = $1`, b.UserID, b.Cents/100); err != nil {
							c.rdb.SRem(context.WithoutCancel(ctx), "bonus:applied", id)
							return err
						}
					}
				}
				if err := rd.CommitMessages(ctx, m); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

type shipment struct {
	EventID string `json:"event_id"`
	OrderID string `json:"order_id"`
}

// HandleShipment books the carrier for an order-packed event. A marker
// keeps a redelivered event from booking twice.
//
// corpus: bug releaseonerror
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (idempotency keys on redelivered messages)
func (c *WalletConsumer) HandleShipment(ctx context.Context, m kafka.Message) error {
	var s shipment
	if err := json.Unmarshal(m.Value, &s); err != nil {
		return err
	}
	key := "shipment-booked:" + s.EventID
	fresh, err := c.rdb.SetNX(ctx, key, m.Offset, 72*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := c.carrier.Book(ctx, s.OrderID); err != nil {
		return fmt.Errorf("book %s: %w", s.OrderID, err)
	}
	return nil
}

// HandleShipmentReleasing books the carrier for an order-packed event. A
// marker keeps a redelivered event from booking twice; a failed booking
// removes it so the redelivery books.
//
// corpus: ok releaseonerror
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (idempotency keys on redelivered messages)
func (c *WalletConsumer) HandleShipmentReleasing(ctx context.Context, m kafka.Message) (err error) {
	var s shipment
	if err := json.Unmarshal(m.Value, &s); err != nil {
		return err
	}
	key := "shipment-booked:" + s.EventID
	fresh, err := c.rdb.SetNX(ctx, key, m.Offset, 72*time.Hour).Result()
	if err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	defer func() {
		if err != nil {
			c.rdb.Del(context.WithoutCancel(ctx), key)
		}
	}()
	if err = c.carrier.Book(ctx, s.OrderID); err != nil {
		return fmt.Errorf("book %s: %w", s.OrderID, err)
	}
	return nil
}

// DrainRetries works the retry topic: a message that fails again is
// written back to the retry topic for a later pass.
//
// corpus: bug releaseonerror
// modelled on: gojekfarm/ziggurat process.go (message handed to a handler, offsets stored whatever it did)
func (c *WalletConsumer) DrainRetries(ctx context.Context, msgs <-chan kafka.Message) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			var s shipment
			if err := json.Unmarshal(m.Value, &s); err != nil {
				continue
			}
			key := "shipment-booked:" + s.EventID
			err := c.rdb.SetArgs(ctx, key, "retry", redis.SetArgs{Mode: "NX", TTL: 72 * time.Hour}).Err()
			if errors.Is(err, redis.Nil) {
				continue
			}
			if err != nil {
				return err
			}
			if err := c.carrier.Book(ctx, s.OrderID); err != nil {
				c.log.WarnContext(ctx, "booking failed again; requeued", "order", s.OrderID, "err", err)
				if werr := c.retry.WriteMessages(ctx, m); werr != nil {
					return werr
				}
				continue
			}
		}
	}
}

// DrainRetriesReleasing works the retry topic: a message that fails again
// has its marker removed and is written back to the retry topic.
//
// corpus: ok releaseonerror
// modelled on: gojekfarm/ziggurat process.go (message handed to a handler, offsets stored whatever it did)
func (c *WalletConsumer) DrainRetriesReleasing(ctx context.Context, msgs <-chan kafka.Message) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			var s shipment
			if err := json.Unmarshal(m.Value, &s); err != nil {
				continue
			}
			key := "shipment-booked:" + s.EventID
			err := c.rdb.SetArgs(ctx, key, "retry", redis.SetArgs{Mode: "NX", TTL: 72 * time.Hour}).Err()
			if errors.Is(err, redis.Nil) {
				continue
			}
			if err != nil {
				return err
			}
			if err := c.carrier.Book(ctx, s.OrderID); err != nil {
				c.rdb.Del(context.WithoutCancel(ctx), key)
				c.log.WarnContext(ctx, "booking failed again; requeued", "order", s.OrderID, "err", err)
				if werr := c.retry.WriteMessages(ctx, m); werr != nil {
					return werr
				}
				continue
			}
		}
	}
}

// ForwardToLedgerFIFO copies a bet onto the ledger's SQS FIFO queue.
//
// corpus: bug attemptkey
// modelled on: keenangraham/go-sqs-deduplication README.md (SQS messages deduplicated by a unique identifier they carry)
func (c *WalletConsumer) ForwardToLedgerFIFO(ctx context.Context, m kafka.Message) error {
	var b Bet
	if err := json.Unmarshal(m.Value, &b); err != nil {
		return err
	}
	_, err := c.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(c.fifoURL),
		MessageBody:            aws.String(string(m.Value)),
		MessageGroupId:         aws.String(b.UserID),
		MessageDeduplicationId: aws.String(fmt.Sprintf("%s-%d", m.Key, time.Now().UnixNano())),
	})
	return err
}

// ForwardToLedgerFIFODeduped copies a bet onto the ledger's SQS FIFO
// queue, deduplicated by the message's place in the topic.
//
// corpus: ok attemptkey
// modelled on: keenangraham/go-sqs-deduplication README.md (SQS messages deduplicated by a unique identifier they carry)
func (c *WalletConsumer) ForwardToLedgerFIFODeduped(ctx context.Context, m kafka.Message) error {
	var b Bet
	if err := json.Unmarshal(m.Value, &b); err != nil {
		return err
	}
	_, err := c.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(c.fifoURL),
		MessageBody:            aws.String(string(m.Value)),
		MessageGroupId:         aws.String(b.UserID),
		MessageDeduplicationId: aws.String(fmt.Sprintf("%s-%d-%d", m.Topic, m.Partition, m.Offset)),
	})
	return err
}
