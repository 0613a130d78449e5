package cacheresponse

import (
	"net/http"
	"time"
)

// ginContext stands for *gin.Context.
type ginContext struct{ Request *http.Request }

func (c *ginContext) JSON(code int, obj any) { _ = obj }
func (c *ginContext) Status(code int)        {}

// A gin handler answers the receipt and never stores it.
func (s *server) ginPay(c *ginContext) {
	ctx := c.Request.Context()
	key := "idem:" + c.Request.Header.Get("Idempotency-Key")
	if !s.rdb.SetNX(ctx, key, "in_progress", time.Hour).Val() {
		c.JSON(http.StatusConflict, map[string]string{"error": "in progress"})
		return
	}
	rc, err := s.charge(c.Request)
	if err != nil {
		s.rdb.Del(ctx, key)
		c.JSON(http.StatusBadGateway, map[string]string{"error": err.Error()})
		return
	}
	c.JSON(http.StatusCreated, rc)
} // want `the end of the function answers without recording the response under the key claimed by SetNX at echo.go:18`

// Negative: a webhook answers a bare status; only its failures carry a
// body.
func (s *server) ginWebhook(c *ginContext) {
	ctx := c.Request.Context()
	id := c.Request.Header.Get("Webhook-Id")
	if !s.rdb.SetNX(ctx, "idem:"+id, "processing", time.Hour).Val() {
		c.Status(http.StatusOK)
		return
	}
	if _, err := s.charge(c.Request); err != nil {
		s.rdb.Del(ctx, "idem:"+id)
		c.JSON(http.StatusBadGateway, map[string]string{"error": err.Error()})
		return
	}
	s.rdb.Set(ctx, "idem:"+id, "done", time.Hour)
	c.Status(http.StatusOK)
}
