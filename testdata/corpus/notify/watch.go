package notify

import (
	"context"
	"encoding/json"
	"fmt"

	redigo "github.com/gomodule/redigo/redis"
)

// QueueSMS queues a notification's SMS once. The mark and the queue push
// run in a MULTI under WATCH of the mark, so a concurrent twin makes EXEC
// abort instead of queueing a second SMS (redigo).
//
// corpus: ok checkthenact
// modelled on: yushion-yang/myredis test/main.go (Watch around a read and a transactional write)
func (n *Notifier) QueueSMS(ctx context.Context, nt Notification) error {
	conn, err := n.pool.GetContext(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	mark := "sms:queued:" + nt.ID
	if _, err := conn.Do("WATCH", mark); err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	queued, err := redigo.Bool(conn.Do("EXISTS", mark))
	if err != nil {
		return fmt.Errorf("exists: %w", err)
	}
	if queued {
		_, err := conn.Do("UNWATCH")
		return err
	}
	payload, err := json.Marshal(nt)
	if err != nil {
		return err
	}
	if err := conn.Send("MULTI"); err != nil {
		return err
	}
	if err := conn.Send("SET", mark, 1, "EX", 7*24*3600); err != nil {
		return err
	}
	if err := conn.Send("LPUSH", "queue:sms", payload); err != nil {
		return err
	}
	reply, err := conn.Do("EXEC")
	if err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	if reply == nil {
		n.log.InfoContext(ctx, "sms queued by a concurrent request", "notification", nt.ID)
	}
	return nil
}
