// Package redeliver forwards order events between queues and refunds
// from a RabbitMQ quorum queue; both brokers deliver a message again when
// its consumer does not settle it, and count how often they did.
package redeliver

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	amqp "github.com/rabbitmq/amqp091-go"
)

// Sender sends to SQS.
type Sender interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Forwarder moves order events onto the FIFO queue fulfilment reads.
type Forwarder struct {
	sqs     Sender
	fifoURL string
}

// Forward sends the event on under a dedup ID built from the message and
// the number of times SQS has handed it out: a redelivery, after a delete
// that failed, is sent again under another ID and fulfilment gets both.
//
// corpus: bug attemptkey
// modelled on: aws/aws-sdk-go-v2 service/sqs/types/enums.go (MessageSystemAttributeNameApproximateReceiveCount, the count of receives in a message's attributes)
func (f *Forwarder) Forward(ctx context.Context, m types.Message) error {
	receives := m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]
	_, err := f.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(f.fifoURL),
		MessageBody:            m.Body,
		MessageGroupId:         aws.String("orders"),
		MessageDeduplicationId: aws.String(aws.ToString(m.MessageId) + "-" + receives),
	})
	return err
}

// ForwardOnce sends the event on under the message's own ID, and reads
// the receive count only to give up on a message that keeps failing.
//
// corpus: ok attemptkey
// modelled on: aws/aws-sdk-go-v2 service/sqs/types/enums.go (MessageSystemAttributeNameApproximateReceiveCount, the count of receives in a message's attributes)
func (f *Forwarder) ForwardOnce(ctx context.Context, m types.Message) error {
	if n, _ := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]); n > 10 {
		return fmt.Errorf("message %s received %d times", aws.ToString(m.MessageId), n)
	}
	_, err := f.sqs.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(f.fifoURL),
		MessageBody:            m.Body,
		MessageGroupId:         aws.String("orders"),
		MessageDeduplicationId: m.MessageId,
	})
	return err
}

// Refunds pays refunds out.
type Refunds interface {
	Pay(ctx context.Context, refundID string, idempotencyKey string) error
}

// RefundConsumer reads refund requests from a quorum queue.
type RefundConsumer struct {
	refunds Refunds
}

// HandleRefund pays the refund under a key that counts the deliveries: a
// quorum queue redelivers a refund whose ack was lost with the next
// x-delivery-count, and it is paid again.
//
// corpus: bug attemptkey
// modelled on: rabbitmq/amqp091-go delivery.go (Delivery.Headers, the table a quorum queue's x-delivery-count arrives in)
func (c *RefundConsumer) HandleRefund(ctx context.Context, d amqp.Delivery) error {
	count, _ := d.Headers["x-delivery-count"].(int64)
	refundID := string(d.Body)
	if err := c.refunds.Pay(ctx, refundID, fmt.Sprintf("refund-%s-%d", refundID, count)); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}

// HandleRefundOnce pays the refund under its own ID.
//
// corpus: ok attemptkey
// modelled on: rabbitmq/amqp091-go delivery.go (Delivery.Headers, the table a quorum queue's x-delivery-count arrives in)
func (c *RefundConsumer) HandleRefundOnce(ctx context.Context, d amqp.Delivery) error {
	refundID := string(d.Body)
	if count, _ := d.Headers["x-delivery-count"].(int64); count > 20 {
		return d.Reject(false)
	}
	if err := c.refunds.Pay(ctx, refundID, "refund-"+refundID); err != nil {
		return d.Nack(false, true)
	}
	return d.Ack(false)
}
