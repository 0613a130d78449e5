package consumer

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// SQSAPI is the part of *sqs.Client the consumers use.
type SQSAPI interface {
	ReceiveMessage(ctx context.Context, in *sqs.ReceiveMessageInput, opts ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, in *sqs.DeleteMessageInput, opts ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// SQSWorker polls a standard queue of order events.
type SQSWorker struct {
	sqs       SQSAPI
	queueURL  string
	fifoURL   string
	rdb       *redis.Client
	processed *Processed
	wallet    Wallet
	mailer    Mailer
	log       *slog.Logger
}

// Poll receives a batch and hands each message to handle, deleting the ones
// that succeed; the rest come back after the visibility timeout.
func (w *SQSWorker) Poll(ctx context.Context, handle func(context.Context, types.Message) error) error {
	out, err := w.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:            aws.String(w.queueURL),
		MaxNumberOfMessages: 10,
		WaitTimeSeconds:     20,
		VisibilityTimeout:   60,
	})
	if err != nil {
		return fmt.Errorf("receive: %w", err)
	}
	for _, m := range out.Messages {
		if err := handle(ctx, m); err != nil {
			w.log.Warn("handle message", "id", aws.ToString(m.MessageId), "err", err)
			continue
		}
		if _, err := w.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{
			QueueUrl:      aws.String(w.queueURL),
			ReceiptHandle: m.ReceiptHandle,
		}); err != nil {
			w.log.Warn("delete message", "id", aws.ToString(m.MessageId), "err", err)
		}
	}
	return nil
}

// ForwardToFIFO moves an order event from the standard queue onto the FIFO
// queue the fulfilment service reads, with a dedup ID minted per delivery:
// when the delete after a successful send fails, the redelivery is sent
// again under a new dedup ID and SQS keeps both.
//
// corpus: bug attemptkey
// modelled on: hanesi/GoPractice AWS-SDK-Examples/SQS/main.go (uuid.New().String() minted inside the send to a .fifo queue)
func (w *SQSWorker) ForwardToFIFO(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	_, err = w.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(w.fifoURL),
		MessageBody:            m.Body,
		MessageGroupId:         aws.String(ev.OrderID),
		MessageDeduplicationId: aws.String(uuid.NewString()),
	})
	return err
}

// ForwardToFIFOByID uses the source message's own ID as the dedup ID, so a
// redelivery is dropped by the FIFO queue within its five-minute window.
//
// corpus: ok attemptkey
// modelled on: jeremybryan/go-aws-utils sqsListen.go (receive, handle, delete by receipt handle)
func (w *SQSWorker) ForwardToFIFOByID(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	_, err = w.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(w.fifoURL),
		MessageBody:            m.Body,
		MessageGroupId:         aws.String(ev.OrderID),
		MessageDeduplicationId: m.MessageId,
	})
	return err
}

// CreditPoints credits loyalty points for an order, dropping deliveries it
// has seen. The dedup key is a fresh uuid for every delivery, so it never
// matches the earlier delivery of the same message.
//
// corpus: bug attemptkey
// modelled on: us0p/interview_preparation software_architecture/patterns/microservices/idempotent_consumer.txt (record processed message IDs to discard duplicates)
func (w *SQSWorker) CreditPoints(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	dedupKey := "points:" + uuid.NewString()
	first, err := w.rdb.SetNX(ctx, dedupKey, ev.OrderID, 7*24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.wallet.Credit(ctx, ev.CustomerID, ev.Cents/100); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), dedupKey)
		return err
	}
	return nil
}

// CreditPointsByMessageID keys the dedup marker on the SQS message ID, which
// every redelivery of the message carries.
//
// corpus: ok attemptkey
// modelled on: us0p/interview_preparation software_architecture/patterns/microservices/idempotent_consumer.txt (processed message IDs as the dedup record)
func (w *SQSWorker) CreditPointsByMessageID(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	dedupKey := "points:" + aws.ToString(m.MessageId)
	first, err := w.rdb.SetNX(ctx, dedupKey, ev.OrderID, 7*24*time.Hour).Result()
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.wallet.Credit(ctx, ev.CustomerID, ev.Cents/100); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), dedupKey)
		return err
	}
	return nil
}

// SendReceipt mails the order receipt once per message. It claims the
// message ID first, and when the mail fails it returns the error for a
// redelivery while the claim stays: the redelivery is taken for a duplicate
// and the receipt is never sent.
//
// corpus: bug releaseonerror
// modelled on: MAlexJ/example_redis stream/delivery_semantics/at_least_once/exclude_duplicate_consumer/readme.md (processed key per message ID; on error the message stays pending for redelivery)
func (w *SQSWorker) SendReceipt(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	first, err := w.processed.Claim(ctx, aws.ToString(m.MessageId))
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.mailer.Send(ctx, ev.CustomerID, "receipt", ev); err != nil {
		return fmt.Errorf("send receipt for %s: %w", ev.OrderID, err)
	}
	return nil
}

// SendReceiptReleasing gives the claim back before asking for a redelivery.
//
// corpus: ok releaseonerror
// modelled on: MAlexJ/example_redis stream/delivery_semantics/at_least_once/exclude_duplicate_consumer/readme.md (processed key per message ID, redelivery on error)
func (w *SQSWorker) SendReceiptReleasing(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	id := aws.ToString(m.MessageId)
	first, err := w.processed.Claim(ctx, id)
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.mailer.Send(ctx, ev.CustomerID, "receipt", ev); err != nil {
		if uerr := w.processed.Unclaim(ctx, id); uerr != nil {
			w.log.Error("unclaim receipt", "id", id, "err", uerr)
		}
		return fmt.Errorf("send receipt for %s: %w", ev.OrderID, err)
	}
	return nil
}

// SendReceiptMarkDone claims the message, sends, and overwrites the claim
// with "done". A consumer has nothing to answer, so "done" is all a
// redelivery needs to see.
//
// corpus: ok cacheresponse
// modelled on: MAlexJ/example_redis stream/delivery_semantics/at_least_once/exclude_duplicate_consumer/readme.md (processed marker per message, then acknowledge)
func (w *SQSWorker) SendReceiptMarkDone(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	key := "receipt:" + aws.ToString(m.MessageId)
	first, err := w.rdb.SetNX(ctx, key, "processing", 10*time.Minute).Result()
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.mailer.Send(ctx, ev.CustomerID, "receipt", ev); err != nil {
		w.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return w.rdb.Set(ctx, key, "done", 14*24*time.Hour).Err()
}

// CreditPointsChecked checks the processed marker through the Processed
// helpers and marks the order after crediting: the check and the mark are
// two helpers, and two deliveries in flight both pass the check.
//
// corpus: bug checkthenact
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (isDuplicate by EXISTS and markProcessed by SET as two helpers around the work)
func (w *SQSWorker) CreditPointsChecked(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	seen, err := w.processed.Seen(ctx, ev.OrderID)
	if err != nil {
		return err
	}
	if seen {
		return nil
	}
	if err := w.wallet.Credit(ctx, ev.CustomerID, ev.Cents/100); err != nil {
		return err
	}
	return w.processed.Mark(ctx, ev.OrderID)
}

// CreditPointsClaimed claims the order through the Processed helper, an
// atomic SET NX, and unclaims it if the credit fails.
//
// corpus: ok checkthenact
// modelled on: kodflow/infrastructure-template .devcontainer/images/.claude/docs/messaging/idempotent-receiver.md (Mark returning whether the message was new)
func (w *SQSWorker) CreditPointsClaimed(ctx context.Context, m types.Message) error {
	ev, err := decodeOrder([]byte(aws.ToString(m.Body)))
	if err != nil {
		return err
	}
	first, err := w.processed.Claim(ctx, ev.OrderID)
	if err != nil {
		return err
	}
	if !first {
		return nil
	}
	if err := w.wallet.Credit(ctx, ev.CustomerID, ev.Cents/100); err != nil {
		w.processed.Unclaim(ctx, ev.OrderID)
		return err
	}
	return nil
}
