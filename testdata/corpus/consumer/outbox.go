package consumer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// OutboxRow is an event waiting in the outbox table to be published.
type OutboxRow struct {
	ID      int64
	GroupID string
	Payload []byte
}

// OutboxPublisher moves outbox rows onto the billing FIFO queue.
type OutboxPublisher struct {
	sqs      SQSAPI
	queueURL string
	markSent func(ctx context.Context, id int64) error
}

// PublishRow sends a row, retrying the send three times. The dedup ID is the
// clock's reading at each attempt, so a send that reached SQS but timed out
// on the way back is stored again by the retry.
//
// corpus: bug attemptkey
// modelled on: hanesi/GoPractice AWS-SDK-Examples/SQS/main.go (SendMessage to a .fifo queue with an ID minted at send time)
func (p *OutboxPublisher) PublishRow(ctx context.Context, row OutboxRow) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = p.sqs.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(p.queueURL),
			MessageBody:            aws.String(string(row.Payload)),
			MessageGroupId:         aws.String(row.GroupID),
			MessageDeduplicationId: aws.String(time.Now().UTC().Format("20060102T150405.000000000")),
		})
		if err == nil {
			return p.markSent(ctx, row.ID)
		}
		time.Sleep(time.Duration(attempt+1) * 250 * time.Millisecond)
	}
	return fmt.Errorf("publish outbox row %d: %w", row.ID, err)
}

// PublishRowHashed computes the dedup ID inside the loop too, but from the
// row's ID and payload, so every attempt sends the same one.
//
// corpus: ok attemptkey
// modelled on: ElvisAWS/aws-notes Summar-Notes/SQS/deduplication.py (content-based deduplication as a SHA-256 of the body)
func (p *OutboxPublisher) PublishRowHashed(ctx context.Context, row OutboxRow) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		sum := sha256.Sum256(append([]byte(fmt.Sprintf("%d:", row.ID)), row.Payload...))
		_, err = p.sqs.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(p.queueURL),
			MessageBody:            aws.String(string(row.Payload)),
			MessageGroupId:         aws.String(row.GroupID),
			MessageDeduplicationId: aws.String(hex.EncodeToString(sum[:])),
		})
		if err == nil {
			return p.markSent(ctx, row.ID)
		}
		time.Sleep(time.Duration(attempt+1) * 250 * time.Millisecond)
	}
	return fmt.Errorf("publish outbox row %d: %w", row.ID, err)
}
