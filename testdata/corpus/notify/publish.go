package notify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/rs/xid"
	"github.com/segmentio/ksuid"
)

// FanOut queues a batch of notifications on the FIFO queue, sending the
// whole batch again while any entry fails.
//
// corpus: bug attemptkey
// modelled on: yuyangd/go-pull sender/main.go (SendMessage to a .fifo queue with MessageGroupId and MessageDeduplicationId)
func (n *Notifier) FanOut(ctx context.Context, batch []Notification) error {
	var lastErr error
	for attempt := range 4 {
		entries := make([]types.SendMessageBatchRequestEntry, 0, len(batch))
		for i, nt := range batch {
			body, err := json.Marshal(nt)
			if err != nil {
				return err
			}
			entries = append(entries, types.SendMessageBatchRequestEntry{
				Id:                     aws.String(strconv.Itoa(i)),
				MessageBody:            aws.String(string(body)),
				MessageGroupId:         aws.String(nt.UserID),
				MessageDeduplicationId: aws.String(ksuid.New().String()),
			})
		}
		out, err := n.queue.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(n.queueURL), Entries: entries})
		if err == nil && len(out.Failed) == 0 {
			return nil
		}
		lastErr = err
		if err == nil {
			lastErr = fmt.Errorf("%d entries failed", len(out.Failed))
		}
		time.Sleep(time.Duration(1<<attempt) * 200 * time.Millisecond)
	}
	return fmt.Errorf("fan out: %w", lastErr)
}

// FanOutByID queues a batch of notifications on the FIFO queue, sending
// the failed entries again; each entry is deduplicated by its
// notification's ID.
//
// corpus: ok attemptkey
// modelled on: yuyangd/go-pull sender/main.go (SendMessage to a .fifo queue with MessageGroupId and MessageDeduplicationId)
func (n *Notifier) FanOutByID(ctx context.Context, batch []Notification) error {
	pending := make(map[string]types.SendMessageBatchRequestEntry, len(batch))
	for i, nt := range batch {
		body, err := json.Marshal(nt)
		if err != nil {
			return err
		}
		id := strconv.Itoa(i)
		pending[id] = types.SendMessageBatchRequestEntry{
			Id:                     aws.String(id),
			MessageBody:            aws.String(string(body)),
			MessageGroupId:         aws.String(nt.UserID),
			MessageDeduplicationId: aws.String(nt.ID),
		}
	}
	for attempt := range 4 {
		entries := make([]types.SendMessageBatchRequestEntry, 0, len(pending))
		for _, e := range pending {
			entries = append(entries, e)
		}
		out, err := n.queue.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(n.queueURL), Entries: entries})
		if err == nil {
			for _, ok := range out.Successful {
				delete(pending, aws.ToString(ok.Id))
			}
			if len(pending) == 0 {
				return nil
			}
		}
		time.Sleep(time.Duration(1<<attempt) * 200 * time.Millisecond)
	}
	return fmt.Errorf("fan out: %d entries not queued", len(pending))
}

// newEnvelope wraps a notification in a JetStream message with an ID of
// its own.
func newEnvelope(subject string, nt Notification) (*nats.Msg, error) {
	data, err := json.Marshal(nt)
	if err != nil {
		return nil, err
	}
	msg := nats.NewMsg(subject)
	msg.Data = data
	msg.Header.Set(nats.MsgIdHdr, xid.New().String())
	msg.Header.Set("Content-Type", "application/json")
	return msg, nil
}

// Announce publishes a notification on the stream, retrying with
// retry-go until the stream acknowledges it.
//
// corpus: bug attemptkey
// modelled on: silviolleite/loafer-natsx README.md (JetStream publishing with deduplication and retry handling)
func (n *Notifier) Announce(ctx context.Context, nt Notification) error {
	return retry.Do(func() error {
		msg, err := newEnvelope("notify."+nt.Channel, nt)
		if err != nil {
			return retry.Unrecoverable(err)
		}
		_, err = n.js.PublishMsg(msg, nats.Context(ctx))
		return err
	}, retry.Attempts(5), retry.Context(ctx), retry.Delay(100*time.Millisecond))
}

// AnnounceOnce publishes a notification on the stream, retrying with
// retry-go; the envelope and its ID are made once, before the retries.
//
// corpus: ok attemptkey
// modelled on: silviolleite/loafer-natsx README.md (JetStream publishing with deduplication and retry handling)
func (n *Notifier) AnnounceOnce(ctx context.Context, nt Notification) error {
	msg, err := newEnvelope("notify."+nt.Channel, nt)
	if err != nil {
		return err
	}
	return retry.Do(func() error {
		_, err := n.js.PublishMsg(msg, nats.Context(ctx))
		return err
	}, retry.Attempts(5), retry.Context(ctx), retry.Delay(100*time.Millisecond))
}

// AnnounceHashed publishes a notification on the stream with a message ID
// that is the hash of its content, so every attempt carries the same ID.
//
// corpus: ok attemptkey
// modelled on: kamogelosekhukhune777/nats-jetstream-reliability README.md (exactly-once via JetStream deduplication headers)
func (n *Notifier) AnnounceHashed(ctx context.Context, nt Notification) error {
	return retry.Do(func() error {
		data, err := json.Marshal(nt)
		if err != nil {
			return retry.Unrecoverable(err)
		}
		sum := sha256.Sum256(data)
		msg := nats.NewMsg("notify." + nt.Channel)
		msg.Data = data
		msg.Header.Set(nats.MsgIdHdr, hex.EncodeToString(sum[:16]))
		_, err = n.js.PublishMsg(msg, nats.Context(ctx))
		return err
	}, retry.Attempts(5), retry.Context(ctx))
}

// Push posts a notification to the push provider, retrying on 5xx. The
// Idempotency-Key is the notification's; only the request ID, which the
// provider uses for tracing, is new on every attempt.
//
// corpus: ok attemptkey
// modelled on: appleboy/go-httpretry README.md (an HTTP client that retries with exponential backoff)
func (n *Notifier) Push(ctx context.Context, nt Notification) error {
	body, err := json.Marshal(nt)
	if err != nil {
		return err
	}
	key := "push-" + nt.ID
	for attempt := range 3 {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.pushURL, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		req.Header.Set("X-Request-Id", uuid.NewString())
		resp, err := n.http.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 500 {
				if resp.StatusCode >= 300 {
					return fmt.Errorf("%w: status %d", ErrNotSent, resp.StatusCode)
				}
				return nil
			}
		}
		time.Sleep(time.Duration(attempt+1) * 300 * time.Millisecond)
	}
	return ErrNotSent
}
