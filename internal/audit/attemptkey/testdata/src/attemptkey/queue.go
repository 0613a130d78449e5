package attemptkey

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// A FIFO queue deduplicates by MessageDeduplicationId: a fresh one per
// attempt sends duplicates.
func publish(ctx context.Context, q *sqs.Client, url, body string) error {
	var err error
	for attempt := 1; ; attempt++ {
		_, err = q.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(url),
			MessageBody:            aws.String(body),
			MessageDeduplicationId: aws.String(strconv.Itoa(rand.Int())), // want `idempotency key made by rand.Int at queue.go:23 inside the retry loop at queue.go:19 reaches MessageDeduplicationId`
			MessageGroupId:         aws.String("orders"),
		})
		if err == nil || attempt == 3 {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
}

// The order's ID deduplicates every attempt.
func publishOrder(ctx context.Context, q *sqs.Client, url, orderID, body string) error {
	var err error
	for attempt := 1; ; attempt++ {
		_, err = q.SendMessage(ctx, &sqs.SendMessageInput{
			QueueUrl:               aws.String(url),
			MessageBody:            aws.String(body),
			MessageDeduplicationId: aws.String("order-" + orderID),
			MessageGroupId:         aws.String("orders"),
		})
		if err == nil || attempt == 3 {
			return err
		}
		time.Sleep(time.Duration(attempt) * time.Second)
	}
}

// A dedup store keyed by a fresh value never sees the same key twice.
func consume(ctx context.Context, rdb *redis.Client, process func() error) error {
	for {
		dedupKey := "dedup:" + uuid.NewString()
		ok, err := rdb.SetNX(ctx, dedupKey, 1, time.Hour).Result() // want `idempotency key made by uuid.NewString at queue.go:53 inside the retry loop at queue.go:52 reaches the Redis key of SetNX`
		if err != nil || !ok {
			return err
		}
		if process() == nil {
			return nil
		}
	}
}

// A message's own ID keys the dedup store.
func consumeMessage(ctx context.Context, rdb *redis.Client, msgID string, process func() error) error {
	for {
		dedupKey := "dedup:" + msgID
		ok, err := rdb.SetNX(ctx, dedupKey, 1, time.Hour).Result()
		if err != nil || !ok {
			return err
		}
		if process() == nil {
			return nil
		}
	}
}

// A fresh value in a loop that is no dedup key: a trace ID, a backoff jitter.
func poll(ctx context.Context, rdb *redis.Client) {
	for {
		rdb.Set(ctx, "trace:"+uuid.NewString(), 1, time.Minute)
		time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
	}
}
