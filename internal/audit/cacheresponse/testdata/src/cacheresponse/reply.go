package cacheresponse

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// msg stands for a request-reply message (a NATS *nats.Msg).
type msg struct{ Data []byte }

func (m *msg) Respond(data []byte) error { return nil }

func quote(ctx context.Context, data []byte) ([]byte, error) { return data, nil }

// The reply answers with the quote; the key is marked "done".
func handleQuote(rdb *redis.Client, m *msg) {
	ctx := context.Background()
	key := "idem:quote:" + string(m.Data)
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		m.Respond([]byte(`{"status":"already handled"}`))
		return
	}
	reply, err := quote(ctx, m.Data)
	if err != nil {
		rdb.Del(ctx, key)
		m.Respond([]byte(`{"error":"quote failed"}`))
		return
	}
	rdb.Set(ctx, key, "done", time.Hour) // want `SET of key to "done" marks the key claimed by SetNX at reply.go:21 completed without the response`
	m.Respond(reply)
}

// Negative: an acknowledgement with a constant is no answer to replay.
func handleAck(rdb *redis.Client, m *msg) {
	ctx := context.Background()
	key := "idem:ack:" + string(m.Data)
	if !rdb.SetNX(ctx, key, "processing", time.Hour).Val() {
		return
	}
	rdb.Set(ctx, key, "done", time.Hour)
	m.Respond([]byte(`{"ok":true}`))
}
