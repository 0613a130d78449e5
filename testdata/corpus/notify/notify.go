// Package notify sends notifications (push, e-mail, digests) and fans
// them out over SQS and NATS. Dedup state lives in Redis, reached through
// go-redis v9 and v8, redigo and rueidis, as the teams that wrote each part
// chose.
package notify

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	redisv8 "github.com/go-redis/redis/v8"
	redigo "github.com/gomodule/redigo/redis"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// ErrNotSent says the provider refused the notification.
var ErrNotSent = errors.New("notify: not sent")

// Notification is one message to one user.
type Notification struct {
	ID         string `json:"id"`
	UserID     string `json:"user_id"`
	CampaignID string `json:"campaign_id"`
	Channel    string `json:"channel"`
	Title      string `json:"title"`
	Body       string `json:"body"`
}

// Sender hands a notification to a provider.
type Sender interface {
	Send(ctx context.Context, n Notification) error
}

// Queue is the part of *sqs.Client the fan-out uses.
type Queue interface {
	SendMessageBatch(ctx context.Context, in *sqs.SendMessageBatchInput, opts ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Prefs are a user's notification settings.
type Prefs struct {
	UserID   string   `json:"user_id"`
	Channels []string `json:"channels"`
	Quiet    bool     `json:"quiet"`
}

// Notifier sends notifications once.
type Notifier struct {
	rdb      *redis.Client
	rdb8     *redisv8.Client
	pool     *redigo.Pool
	rue      rueidis.Client
	sender   Sender
	queue    Queue
	queueURL string
	js       nats.JetStreamContext
	http     *http.Client
	pushURL  string
	loadPref func(ctx context.Context, userID string) (*Prefs, error)
	log      *slog.Logger
	ttl      time.Duration
}

// Option configures a Notifier.
type Option func(*Notifier)

// WithQueue sets the fan-out queue.
func WithQueue(q Queue, url string) Option {
	return func(n *Notifier) { n.queue, n.queueURL = q, url }
}

// WithJetStream sets the stream publisher.
func WithJetStream(js nats.JetStreamContext) Option { return func(n *Notifier) { n.js = js } }

// WithLegacyRedis sets the go-redis v8 client of the receipts service.
func WithLegacyRedis(c *redisv8.Client) Option { return func(n *Notifier) { n.rdb8 = c } }

// WithPool sets the redigo pool of the digest worker.
func WithPool(p *redigo.Pool) Option { return func(n *Notifier) { n.pool = p } }

// WithRueidis sets the rueidis client of the campaign service.
func WithRueidis(c rueidis.Client) Option { return func(n *Notifier) { n.rue = c } }

// WithPrefs sets where preferences are loaded from on a cache miss.
func WithPrefs(f func(ctx context.Context, userID string) (*Prefs, error)) Option {
	return func(n *Notifier) { n.loadPref = f }
}

// New returns a Notifier.
func New(rdb *redis.Client, sender Sender, opts ...Option) *Notifier {
	n := &Notifier{rdb: rdb, sender: sender, http: http.DefaultClient, log: slog.Default(), ttl: 72 * time.Hour}
	for _, o := range opts {
		o(n)
	}
	return n
}

// isNil reports whether a rueidis reply was nil (SET NX that did not set).
func isNil(err error) bool { return rueidis.IsRedisNil(err) }
