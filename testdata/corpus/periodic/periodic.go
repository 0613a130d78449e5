// Package periodic holds loops that send on a schedule, a heartbeat, an
// announcement, a stream of readings: each turn sends a new record under
// a new ID, on success too, and the loop leaves only when it is stopped.
// Beside them are loops that resend one record until it gets through,
// where a new ID on each turn makes every retry a new record.
package periodic

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	amqp "github.com/rabbitmq/amqp091-go"
	"github.com/redis/go-redis/v9"
	"github.com/segmentio/kafka-go"
)

// Beat tells the cluster a node is alive.
type Beat struct {
	ID   string `json:"id"`
	Node string `json:"node"`
}

// Registration asks the scheduler to give a node work.
type Registration struct {
	ID    string   `json:"id"`
	Node  string   `json:"node"`
	Kinds []string `json:"kinds"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Presence keeps a node's place in the cluster.
type Presence struct {
	nc   *nats.Conn
	ch   *amqp.Channel
	kw   *kafka.Writer
	node string
	log  *slog.Logger
}

// beatForever publishes a beat every 20 seconds, each under a new ID;
// nothing is resent, a lost beat is followed by the next.
//
// corpus: ok attemptkey
// modelled on: line-lee/isscross petal/heartbeat.go (a heartbeat message with a new uuid pushed after every 20-second sleep)
func beatForever(nc *nats.Conn, node string, log *slog.Logger) {
	for {
		time.Sleep(20 * time.Second)
		if err := nc.Publish("cluster.beat", mustJSON(Beat{ID: uuid.NewString(), Node: node})); err != nil {
			log.Warn("beat", "err", err)
		}
	}
}

// announce tells the API servers where this data server listens, every
// five seconds until the context ends, and gives up on a closed channel.
//
// corpus: ok attemptkey
// modelled on: dokidokikoi/nagato dataservice/internal/heartbeat/heartbeat.go (the server's address published to an exchange every five seconds)
func (p *Presence) announce(ctx context.Context, addr string) error {
	for {
		err := p.ch.PublishWithContext(ctx, "apiServers", "", false, false, amqp.Publishing{
			MessageId: uuid.NewString(),
			Body:      []byte(addr),
		})
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(5 * time.Second):
		}
	}
}

// streamSamples appends a new sample event each interval until the
// process is interrupted; a failed append is logged and the next sample
// goes out on time.
//
// corpus: ok attemptkey
// modelled on: jdextraze/go-gesclient examples/publisher/main.go (an event with a new uuid appended every interval until a signal arrives)
func (p *Presence) streamSamples(ctx context.Context, stop <-chan os.Signal, sample []byte, interval time.Duration) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		err := p.kw.WriteMessages(ctx, kafka.Message{
			Headers: []kafka.Header{{Key: "event_id", Value: []byte(uuid.NewString())}},
			Value:   sample,
		})
		if err != nil {
			p.log.Warn("sample", "err", err)
		}
		<-time.After(interval)
	}
}

// register asks for work until the scheduler takes the registration,
// making a new one after each failure: a registration that arrived but
// whose answer was lost is followed by another under a new ID.
//
// corpus: bug attemptkey
// modelled on: line-lee/isscross petal/retry.go (a reconnect loop that sleeps a second after a failure and returns once through)
func (p *Presence) register(kinds []string) {
	for {
		err := p.nc.Publish("scheduler.register", mustJSON(Registration{ID: uuid.NewString(), Node: p.node, Kinds: kinds}))
		if err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// registerOnce names the registration before its retries.
//
// corpus: ok attemptkey
// modelled on: line-lee/isscross petal/retry.go (a reconnect loop that sleeps a second after a failure and returns once through)
func (p *Presence) registerOnce(kinds []string) {
	r := Registration{ID: uuid.NewString(), Node: p.node, Kinds: kinds}
	for {
		if err := p.nc.Publish("scheduler.register", mustJSON(r)); err == nil {
			return
		}
		time.Sleep(time.Second)
	}
}

// announceUntilHeard publishes the announcement again while the last one
// failed, each time under a new ID.
//
// corpus: bug attemptkey
// modelled on: dokidokikoi/nagato dataservice/internal/heartbeat/heartbeat.go (the server's address published to an exchange), resent until it goes through
func (p *Presence) announceUntilHeard(ctx context.Context, addr string) error {
	var err error
	for sent := false; !sent; {
		err = p.ch.PublishWithContext(ctx, "apiServers", "", false, false, amqp.Publishing{
			MessageId: uuid.NewString(),
			Body:      []byte(addr),
		})
		sent = err == nil
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return err
}

// Tasks feeds the workers' Redis list with JSON tasks.
type Tasks struct {
	rdb *redis.Client
}

// pushTask pushes a task until Redis takes it, naming the task anew on
// each attempt: a push that landed but timed out runs the task twice.
//
// corpus: bug attemptkey
// modelled on: RussellLuo/gotask examples/redis/README.md (tasks RPUSHed to the worker's list as JSON carrying their own uuid, name and args)
func (t *Tasks) pushTask(ctx context.Context, name string, args map[string]any) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		body := mustJSON(map[string]any{"task_id": uuid.NewString(), "name": name, "args": args})
		if err = t.rdb.RPush(ctx, "tasks", body).Err(); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Second)
	}
	return err
}

// pushSweeps pushes a new sweep task every minute until stopped: each
// push is a sweep of its own, and a failed one is followed by the next.
//
// corpus: ok attemptkey
// modelled on: RussellLuo/gotask examples/redis/README.md (tasks RPUSHed to the worker's list as JSON carrying their own uuid, name and args)
func (t *Tasks) pushSweeps(ctx context.Context, args map[string]any) {
	for ctx.Err() == nil {
		body := mustJSON(map[string]any{"task_id": uuid.NewString(), "name": "sweep", "args": args})
		_ = t.rdb.RPush(ctx, "tasks", body).Err()
		time.Sleep(time.Minute)
	}
}
