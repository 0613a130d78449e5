package releaseonerror

import (
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
)

// echoContext stands for echo.Context: handlers return what its answers
// return.
type echoContext struct{ req *http.Request }

func (c *echoContext) JSON(code int, v any) error { return nil }
func (c *echoContext) NoContent(code int) error   { return nil }

// A 502 returned as echo's answer leaves the key held.
func echoPay(c *echoContext, rdb *redis.Client, key string) error {
	ctx := c.req.Context()
	if !rdb.SetNX(ctx, "idem:"+key, "in_progress", time.Hour).Val() {
		return c.JSON(http.StatusConflict, "in progress")
	}
	if err := send(ctx, key); err != nil {
		return c.JSON(http.StatusBadGateway, err.Error()) // want `this error return leaves the key claimed by SetNX at echo.go:20 held`
	}
	rdb.Set(ctx, "idem:"+key, `{"status":200}`, time.Hour)
	return c.JSON(http.StatusOK, "paid")
}

// Negative: echo's 200 answer is a success, whatever its error result;
// the key stays as the record that the event was handled.
func echoWebhook(c *echoContext, rdb *redis.Client, id string) error {
	ctx := c.req.Context()
	if !rdb.SetNX(ctx, "seen:"+id, 1, 72*time.Hour).Val() {
		return c.NoContent(http.StatusOK)
	}
	if err := send(ctx, id); err != nil {
		rdb.Del(ctx, "seen:"+id)
		return c.NoContent(http.StatusInternalServerError)
	}
	return c.NoContent(http.StatusOK)
}
