package releaseonerror

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"
)

// fiber answers with the status the context holds: 200 unless set, or what
// c.Status set in the same chain. The error these answers return is the
// write's, so returning one is the handler's success, not a failure.

// Negative: the hold is meant to outlive the request; the success answer is
// fiber's c.JSON, with no status of its own.
func fiberHold(c *fiber.Ctx, rdb *redis.Client, seat, user string) error {
	ctx := c.UserContext()
	held, err := rdb.SetNX(ctx, "hold:"+seat, user, time.Minute).Result()
	if err != nil {
		return c.Status(fiber.StatusInternalServerError).JSON(fiber.Map{"error": "store"})
	}
	if !held {
		return c.Status(fiber.StatusConflict).JSON(fiber.Map{"error": "held"})
	}
	return c.JSON(fiber.Map{"status": "held", "seat": seat})
}

// Negative: the same with a 201 set in the chain, and a plain string.
func fiberHoldCreated(c *fiber.Ctx, rdb *redis.Client, seat, user string) error {
	ctx := c.UserContext()
	if !rdb.SetNX(ctx, "hold:"+seat, user, time.Minute).Val() {
		return c.Status(fiber.StatusConflict).SendString("held")
	}
	if seat == "" {
		return c.SendString("nothing to hold")
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"seat": seat})
}

// A 502 set in the chain is a failure: the key stays claimed.
func fiberPay(c *fiber.Ctx, rdb *redis.Client, key string) error {
	ctx := c.UserContext()
	if !rdb.SetNX(ctx, "idem:"+key, "in_progress", time.Hour).Val() {
		return c.Status(fiber.StatusConflict).JSON(fiber.Map{"error": "in progress"})
	}
	if err := send(ctx, key); err != nil {
		return c.Status(fiber.StatusBadGateway).JSON(fiber.Map{"error": err.Error()}) // want `this error return leaves the key claimed by SetNX at fiber.go:44 held`
	}
	rdb.Set(ctx, "idem:"+key, `{"status":200}`, time.Hour)
	return c.JSON(fiber.Map{"status": "paid"})
}

// A status only known at run time says nothing: the return is taken as a
// failure, as any error return is.
func fiberStatusVar(c *fiber.Ctx, rdb *redis.Client, key string, code int) error {
	ctx := c.UserContext()
	if !rdb.SetNX(ctx, "idem:"+key, "in_progress", time.Hour).Val() {
		return c.SendStatus(fiber.StatusConflict)
	}
	if err := send(ctx, key); err != nil {
		return c.Status(code).JSON(fiber.Map{"error": err.Error()}) // want `this error return leaves the key claimed by SetNX at fiber.go:58 held`
	}
	return c.SendStatus(fiber.StatusOK)
}

// outbox is not fiber: its Send fails with the message undelivered.
type outbox struct{}

func (outbox) Send(ctx context.Context, msg []byte) error { return nil }

// Returning another Send's error, with the key claimed, is a failure.
func relayOnce(ctx context.Context, rdb *redis.Client, o outbox, id string, msg []byte) error {
	if !rdb.SetNX(ctx, "relay:"+id, 1, time.Hour).Val() {
		return nil
	}
	return o.Send(ctx, msg) // want `this error return leaves the key claimed by SetNX at fiber.go:74 held`
}
