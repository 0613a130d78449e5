// Package relay moves the order service's outbox to the brokers (RabbitMQ,
// SQS FIFO, NATS JetStream) and delivers merchant webhooks and seller
// payouts. Each relay pass may resend what the last pass did not confirm,
// so every message carries a key the receiver deduplicates on.
package relay

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/ksuid"
)

// Row is one outbox row.
type Row struct {
	ID       int64
	EventID  uuid.UUID
	Topic    string
	Payload  []byte
	DedupKey string
}

// Relay publishes outbox rows.
type Relay struct {
	db      *sql.DB
	ch      *amqp.Channel
	sqs     *sqs.Client
	fifoURL string
	js      nats.JetStreamContext
	rdb     *redis.Client
	host    string
	log     *slog.Logger
}

func (r *Relay) markSent(ctx context.Context, id int64) {
	if _, err := r.db.ExecContext(ctx, `UPDATE outbox SET sent_at = now() WHERE id = $1`, id); err != nil {
		r.log.WarnContext(ctx, "mark outbox row sent", "id", id, "err", err)
	}
}

// PublishRow sends one outbox row to the orders exchange. Rows whose
// publish was not confirmed are picked up again on the next tick.
//
// corpus: bug attemptkey
// modelled on: kamal-github/outbox pubsub/rabbit.go (Dispatch publishes each outbox row, failed rows retried by the worker)
func (r *Relay) PublishRow(ctx context.Context, row Row) error {
	err := r.ch.PublishWithContext(ctx, "orders", row.Topic, true, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		MessageId:    uuid.NewString(),
		Timestamp:    time.Now(),
		Body:         row.Payload,
	})
	if err != nil {
		return err
	}
	r.markSent(ctx, row.ID)
	return nil
}

// PublishRowKeyed sends one outbox row to the orders exchange under the
// event id the row was written with.
//
// corpus: ok attemptkey
// modelled on: kamal-github/outbox pubsub/rabbit.go (Dispatch publishes each outbox row with its outbox id in the headers)
func (r *Relay) PublishRowKeyed(ctx context.Context, row Row) error {
	err := r.ch.PublishWithContext(ctx, "orders", row.Topic, true, false, amqp.Publishing{
		ContentType:  "application/json",
		DeliveryMode: amqp.Persistent,
		MessageId:    row.EventID.String(),
		Timestamp:    time.Now(),
		Headers:      amqp.Table{"outbox_id": row.ID},
		Body:         row.Payload,
	})
	if err != nil {
		return err
	}
	r.markSent(ctx, row.ID)
	return nil
}

// SendToFIFO sends one outbox row to the SQS FIFO queue, retrying
// throttling errors.
//
// corpus: bug attemptkey
// modelled on: avast/retry-go README.md (retry.Do with attempts and delay around a call)
func (r *Relay) SendToFIFO(ctx context.Context, row Row) error {
	return retry.Do(func() error {
		_, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(r.fifoURL),
			MessageBody:            aws.String(string(row.Payload)),
			MessageGroupId:         aws.String(row.Topic),
			MessageDeduplicationId: aws.String(strconv.FormatInt(time.Now().UnixNano(), 10)),
		})
		return err
	}, retry.Context(ctx), retry.Attempts(5), retry.Delay(200*time.Millisecond))
}

// SendToFIFOKeyed sends one outbox row to the SQS FIFO queue, retrying
// throttling errors under the row's event id.
//
// corpus: ok attemptkey
// modelled on: avast/retry-go README.md (retry.Do with attempts and delay around a call)
func (r *Relay) SendToFIFOKeyed(ctx context.Context, row Row) error {
	return retry.Do(func() error {
		_, err := r.sqs.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(r.fifoURL),
			MessageBody:            aws.String(string(row.Payload)),
			MessageGroupId:         aws.String(row.Topic),
			MessageDeduplicationId: aws.String(row.EventID.String()),
		})
		return err
	}, retry.Context(ctx), retry.Attempts(5), retry.Delay(200*time.Millisecond))
}

// StreamRows publishes a batch of outbox rows to JetStream, trying each
// row up to three times.
//
// corpus: bug attemptkey
// modelled on: justinndidit/nexus services/ledger/internal/worker/relay.go (processBatch publishes each outbox event, retry count bumped on failure)
func (r *Relay) StreamRows(ctx context.Context, rows []Row) {
	for _, row := range rows {
		for try := 0; try < 3; try++ {
			msg := &nats.Msg{
				Subject: "orders." + row.Topic,
				Data:    row.Payload,
				Header:  nats.Header{},
			}
			msg.Header.Set(nats.MsgIdHdr, ksuid.New().String())
			if _, err := r.js.PublishMsg(msg, nats.Context(ctx)); err != nil {
				r.log.WarnContext(ctx, "publish", "row", row.ID, "try", try, "err", err)
				continue
			}
			r.markSent(ctx, row.ID)
			break
		}
	}
}

// StreamRowsKeyed publishes a batch of outbox rows to JetStream, trying
// each row up to three times under the dedup key stored on the row.
//
// corpus: ok attemptkey
// modelled on: justinndidit/nexus services/ledger/internal/worker/relay.go (processBatch publishes each outbox event under its event id)
func (r *Relay) StreamRowsKeyed(ctx context.Context, rows []Row) {
	for _, row := range rows {
		for try := 0; try < 3; try++ {
			msg := &nats.Msg{
				Subject: "orders." + row.Topic,
				Data:    row.Payload,
				Header:  nats.Header{},
			}
			msg.Header.Set(nats.MsgIdHdr, row.DedupKey)
			if _, err := r.js.PublishMsg(msg, nats.Context(ctx)); err != nil {
				r.log.WarnContext(ctx, "publish", "row", row.ID, "try", try, "err", err)
				continue
			}
			r.markSent(ctx, row.ID)
			break
		}
	}
}

// Enqueue writes an order event to the outbox in the caller's
// transaction; the event gets its id and dedup key here, once, and every
// relay pass reuses them.
//
// corpus: ok attemptkey
// modelled on: danicc097/todo-ddd-example sql/queries/outbox.sql (SaveOutboxEvent inserts the event id with the payload)
func Enqueue(ctx context.Context, tx *sql.Tx, topic string, event any) error {
	payload, err := json.Marshal(event)
	if err != nil {
		return err
	}
	id := uuid.New()
	_, err = tx.ExecContext(ctx,
		`INSERT INTO outbox (event_id, topic, payload, dedup_key) VALUES ($1, $2, $3, $4)`,
		id, topic, payload, "evt-"+id.String())
	return err
}

const relayLock = "outbox-relay-lock"

var unlockScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end
return 0`)

func (r *Relay) pending(ctx context.Context) ([]Row, error) {
	rows, err := r.db.QueryContext(ctx,
		`SELECT id, event_id, topic, payload, dedup_key FROM outbox WHERE sent_at IS NULL ORDER BY id LIMIT 100`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var row Row
		if err := rows.Scan(&row.ID, &row.EventID, &row.Topic, &row.Payload, &row.DedupKey); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// RelayOnce runs one pass of the relay. Only one relay instance runs a
// pass at a time; the others skip the tick.
//
// corpus: bug releaseonerror
// modelled on: yosuahutagalung/go-microservice-boilerplate internal/data/queries/outbox.sql (GetPendingOutboxEvents then MarkOutboxEventPublished)
func (r *Relay) RelayOnce(ctx context.Context) error {
	token := r.host + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
	got, err := r.rdb.SetNX(ctx, relayLock, token, 5*time.Minute).Result()
	if err != nil || !got {
		return err
	}
	rows, err := r.pending(ctx)
	if err != nil {
		return fmt.Errorf("fetch outbox: %w", err)
	}
	for _, row := range rows {
		if err := r.PublishRowKeyed(ctx, row); err != nil {
			r.log.WarnContext(ctx, "publish row", "id", row.ID, "err", err)
		}
	}
	return unlockScript.Run(ctx, r.rdb, []string{relayLock}, token).Err()
}

// RelayOnceUnlocking runs one pass of the relay. Only one relay instance
// runs a pass at a time; the lock is given back however the pass ends.
//
// corpus: ok releaseonerror
// modelled on: yosuahutagalung/go-microservice-boilerplate internal/data/queries/outbox.sql (GetPendingOutboxEvents then MarkOutboxEventPublished)
func (r *Relay) RelayOnceUnlocking(ctx context.Context) error {
	token := r.host + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
	got, err := r.rdb.SetNX(ctx, relayLock, token, 5*time.Minute).Result()
	if err != nil || !got {
		return err
	}
	defer unlockScript.Run(context.WithoutCancel(ctx), r.rdb, []string{relayLock}, token)
	rows, err := r.pending(ctx)
	if err != nil {
		return fmt.Errorf("fetch outbox: %w", err)
	}
	for _, row := range rows {
		if err := r.PublishRowKeyed(ctx, row); err != nil {
			r.log.WarnContext(ctx, "publish row", "id", row.ID, "err", err)
		}
	}
	return nil
}
