package attemptkey

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	amqp "github.com/rabbitmq/amqp091-go"
)

// SQS counts the receives of a message in a system attribute: read from
// the message's attributes, it is the number of the delivery.
type receiveCountConsumer struct{ c *charges }

func (r *receiveCountConsumer) handleCharge(ctx context.Context, m types.Message) error {
	n, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"])
	return r.c.charge(ctx, fmt.Sprintf("%s-%d", *m.MessageId, n), 100) // want `made by m.Attributes\["ApproximateReceiveCount"\], the number of the attempt at deliverycount.go:\d+ inside the consumer handleCharge`
}

func (r *receiveCountConsumer) handleChargeByID(ctx context.Context, m types.Message) error {
	if n, _ := strconv.Atoi(m.Attributes["ApproximateReceiveCount"]); n > 5 {
		return nil
	}
	return r.c.charge(ctx, "sqs-"+*m.MessageId, 100)
}

// An attribute of another name is the message's own.
func (r *receiveCountConsumer) handleChargeByOrder(ctx context.Context, m types.Message) error {
	return r.c.charge(ctx, "order-"+m.Attributes["OrderId"], 100)
}

// A quorum queue counts the deliveries of a message in a header.
func (r *receiveCountConsumer) consumeRefund(ctx context.Context, d amqp.Delivery) error {
	count, _ := d.Headers["x-delivery-count"].(int64)
	if err := r.c.charge(ctx, d.MessageId+"-"+strconv.FormatInt(count, 10), -100); err != nil { // want `made by d.Headers\["x-delivery-count"\], the number of the attempt`
		return err
	}
	return d.Ack(false)
}

func (r *receiveCountConsumer) consumeRefundByID(ctx context.Context, d amqp.Delivery) error {
	if err := r.c.charge(ctx, d.MessageId, -100); err != nil {
		return err
	}
	return d.Ack(false)
}
