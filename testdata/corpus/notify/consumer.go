package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	redigo "github.com/gomodule/redigo/redis"
	"github.com/google/uuid"
)

func decode(m types.Message) (Notification, error) {
	var nt Notification
	err := json.Unmarshal([]byte(aws.ToString(m.Body)), &nt)
	return nt, err
}

// HandleQueued sends a queued notification, skipping deliveries it has
// seen by their receipt.
//
// corpus: bug attemptkey
// modelled on: hanesi/GoPractice AWS-SDK-Examples/SQS/main.go (an SQS message handled by the values the queue hands back)
func (n *Notifier) HandleQueued(ctx context.Context, m types.Message) error {
	nt, err := decode(m)
	if err != nil {
		return err
	}
	key := "notify:inbox:" + aws.ToString(m.ReceiptHandle)
	fresh, err := n.rdb.SetNX(ctx, key, 1, n.ttl).Result()
	if err != nil {
		return fmt.Errorf("setnx: %w", err)
	}
	if !fresh {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}

// HandleQueuedByID sends a queued notification, skipping deliveries of a
// notification it has sent, by the notification's own ID.
//
// corpus: ok attemptkey
// modelled on: hanesi/GoPractice AWS-SDK-Examples/SQS/main.go (an SQS message handled by the values the queue hands back)
func (n *Notifier) HandleQueuedByID(ctx context.Context, m types.Message) error {
	nt, err := decode(m)
	if err != nil {
		return err
	}
	key := "notify:inbox:" + nt.ID
	fresh, err := n.rdb.SetNX(ctx, key, 1, n.ttl).Result()
	if err != nil {
		return fmt.Errorf("setnx: %w", err)
	}
	if !fresh {
		return nil
	}
	trace := uuid.NewString()
	n.log.InfoContext(ctx, "sending", "notification", nt.ID, "trace", trace)
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return nil
}

// HandleCampaignMessage sends a campaign notification from the queue once,
// claiming it with SET NX (rueidis).
//
// corpus: bug releaseonerror
// modelled on: mcecil12-sketch/cecil-investments-day-trading lib/notifications/dedupe.ts (SET NX EX per event key, cleared by a separate call)
func (n *Notifier) HandleCampaignMessage(ctx context.Context, m types.Message) error {
	nt, err := decode(m)
	if err != nil {
		return err
	}
	key := "campaign:msg:" + nt.ID
	err = n.rue.Do(ctx, n.rue.B().Set().Key(key).Value("1").Nx().ExSeconds(7*24*3600).Build()).Error()
	if err != nil {
		if isNil(err) {
			return nil
		}
		return fmt.Errorf("claim: %w", err)
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		return fmt.Errorf("send %s: %w", nt.ID, err)
	}
	return nil
}

// HandleDigestMessage sends a digest from the queue once, claiming it
// with SET NX (redigo); a failed or panicking send gives the claim back.
//
// corpus: ok releaseonerror
// modelled on: mcecil12-sketch/cecil-investments-day-trading lib/notifications/dedupe.ts (SET NX EX per event key, cleared by a separate call)
func (n *Notifier) HandleDigestMessage(ctx context.Context, m types.Message) (err error) {
	nt, err := decode(m)
	if err != nil {
		return err
	}
	conn, err := n.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	key := "digest:msg:" + nt.ID
	if _, err := redigo.String(conn.Do("SET", key, "1", "NX", "EX", 7*24*3600)); err != nil {
		if err == redigo.ErrNil {
			return nil
		}
		return fmt.Errorf("claim: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			_, _ = conn.Do("DEL", key)
			panic(r)
		}
		if err != nil {
			_, _ = conn.Do("DEL", key)
		}
	}()
	return n.sender.Send(ctx, nt)
}

// HandleReminder sends a reminder from the queue once. The key holds
// "processing" with a short lease while the send runs and "done" after;
// a consumer has no answer to keep, only whether the work was done.
//
// corpus: ok cacheresponse
// modelled on: gauravprwl14/system-design-course docs-site/pages/interview-prep/practice-pocs/redis-deduplication.md (checkAndMark by SET NX EX, markProcessed after the work)
func (n *Notifier) HandleReminder(ctx context.Context, m types.Message) error {
	nt, err := decode(m)
	if err != nil {
		return err
	}
	key := "reminder:" + nt.ID
	claimed, err := n.rdb.SetNX(ctx, key, "processing", 5*time.Minute).Result()
	if err != nil {
		return fmt.Errorf("claim: %w", err)
	}
	if !claimed {
		return nil
	}
	if err := n.sender.Send(ctx, nt); err != nil {
		n.rdb.Del(context.WithoutCancel(ctx), key)
		return err
	}
	return n.rdb.Set(ctx, key, "done", n.ttl).Err()
}
