// Package queue consumes sign-up messages and sends each new customer one
// welcome mail. The broker redelivers a message whose handler fails, or
// that it could not see acknowledged.
package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Message is one delivery from the broker.
type Message struct {
	ID   string
	Body []byte
}

// Mailer sends mail; it deduplicates by the key it is given.
type Mailer interface {
	Send(ctx context.Context, to, subject, body, idempotencyKey string) error
}

// Consumer handles sign-up messages.
type Consumer struct {
	Redis  *redis.Client
	Mailer Mailer
}

// window is longer than the broker redelivers a message.
const window = 7 * 24 * time.Hour

// Handle sends the welcome mail for one message. A nil error acknowledges
// the message; an error has it redelivered, and gives the key back so that
// the redelivery can run at once.
func (c *Consumer) Handle(ctx context.Context, msg Message) (err error) {
	var signup struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	}
	if err := json.Unmarshal(msg.Body, &signup); err != nil {
		return fmt.Errorf("message %s: %w", msg.ID, err)
	}
	key := "dedup:welcome:" + msg.ID
	ok, err := c.Redis.SetNX(ctx, key, "processing", window).Result()
	if err != nil {
		return err
	}
	if !ok {
		return nil // a redelivery of a message already taken
	}
	defer func() {
		if err != nil {
			c.Redis.Del(context.WithoutCancel(ctx), key)
		}
	}()
	if err := c.Mailer.Send(ctx, signup.Email, "Welcome", "Hello "+signup.Name, "welcome:"+msg.ID); err != nil {
		return fmt.Errorf("welcome mail for %s: %w", msg.ID, err)
	}
	return c.Redis.Set(ctx, key, "done", window).Err()
}
