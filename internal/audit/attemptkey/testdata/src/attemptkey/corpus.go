package attemptkey

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"github.com/rs/xid"
	"github.com/stripe/stripe-go/v82"
)

// Points credits loyalty points; its methods are named for what they do,
// not for consuming.
type Points struct {
	rdb *redis.Client
	js  nats.JetStreamContext
}

// An SQS message is only ever received: whatever the name, this handles a
// delivery.
func (p *Points) CreditPoints(ctx context.Context, m types.Message) error {
	dedupKey := "points:" + uuid.NewString()
	return p.rdb.SetNX(ctx, dedupKey, 1, time.Hour).Err() // want `inside the consumer CreditPoints`
}

// A NATS message it acknowledges is one it received.
func (p *Points) CopyToLedger(m *nats.Msg) {
	p.js.Publish("ledger", m.Data, nats.MsgId(xid.New().String())) // want `inside the consumer CopyToLedger`
	m.Ack()
}

// Named for relaying.
func (p *Points) RelayToLedger(m *nats.Msg) {
	p.js.Publish("ledger", m.Data, nats.MsgId(xid.New().String())) // want `inside the consumer RelayToLedger`
}

// A NATS message it builds and sends, under a name that says nothing of
// consuming: the caller decides how often it runs.
func (p *Points) stamp(m *nats.Msg) {
	m.Header.Set(nats.MsgIdHdr, xid.New().String())
	p.js.PublishMsg(m)
}

// Standard Webhooks' webhook-id is the delivery's idempotency key.
func postWebhook(ctx context.Context, url string) error {
	var err error
	for range 3 {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header.Set("Webhook-Id", "msg_"+xid.New().String()) // want `inside the retry loop at corpus.go:\d+ reaches the Webhook-Id header`
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			return resp.Body.Close()
		}
	}
	return err
}

// Envelope is an application message with its own ID.
type Envelope struct {
	ID      string
	Subject string
	Body    []byte
}

// Broker publishes envelopes and drops one whose ID it has seen.
type Broker interface {
	Publish(ctx context.Context, e Envelope) error
}

// Each copy of a redelivered message gets a new ID: the broker keeps both.
func fanOut(b Broker, regions []string) func(ctx context.Context, m Envelope) error {
	return func(ctx context.Context, m Envelope) error {
		for _, r := range regions {
			if err := b.Publish(ctx, Envelope{ID: xid.New().String(), Subject: r, Body: m.Body}); err != nil { // want `inside the message handler at corpus.go:\d+ reaches the ID of a Envelope`
				return err
			}
		}
		return nil
	}
}

// The copies' IDs derive from the source's.
func fanOutDerived(b Broker, regions []string) func(ctx context.Context, m Envelope) error {
	return func(ctx context.Context, m Envelope) error {
		for _, r := range regions {
			if err := b.Publish(ctx, Envelope{ID: m.ID + "/" + r, Subject: r, Body: m.Body}); err != nil {
				return err
			}
		}
		return nil
	}
}

// A request that publishes a new event: the event's new ID is an entity's.
func (s *Server) announce(b Broker) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b.Publish(r.Context(), Envelope{ID: uuid.NewString(), Subject: "orders.created"})
	}
}

// Cloud names a database on create; a second create of a name it has is
// refused, which is what makes the create safe to retry.
type Cloud struct{}

func (c *Cloud) createDatabase(ctx context.Context, name string) error { return nil }

// makeDB passes its name on to createDatabase.
func (c *Cloud) makeDB(ctx context.Context, name string) error { return c.createDatabase(ctx, name) }

// createTenantDatabase names the database afresh on every call.
func (c *Cloud) createTenantDatabase(ctx context.Context, tenant string) error {
	suffix := make([]byte, 4)
	rand.Read(suffix)
	return c.createDatabase(ctx, "db-"+tenant+"-"+hex.EncodeToString(suffix))
}

func (c *Cloud) provisionTenant(ctx context.Context, tenant string) error {
	var err error
	for range 3 {
		if err = c.createTenantDatabase(ctx, tenant); err == nil { // want `made by createTenantDatabase \(rand.Read at corpus.go:\d+, reaching the name parameter of createDatabase at corpus.go:\d+\) inside the retry loop`
			return nil
		}
	}
	return err
}

// The same with the name in a request literal.
type CreateBucketInput struct {
	BucketName *string
	Region     string
}

func (c *Cloud) CreateBucket(ctx context.Context, in *CreateBucketInput) error { return nil }

func (c *Cloud) provisionBucket(ctx context.Context, tenant string) error {
	var err error
	for range 3 {
		name := "bkt-" + tenant + "-" + xid.New().String()
		if err = c.CreateBucket(ctx, &CreateBucketInput{BucketName: &name, Region: "eu"}); err == nil { // want `inside the retry loop at corpus.go:\d+ reaches the BucketName of the request to CreateBucket`
			return nil
		}
	}
	return err
}

func (c *Cloud) handleBucket(w http.ResponseWriter, r *http.Request) {
	name := "bkt-" + xid.New().String()
	c.CreateBucket(r.Context(), &CreateBucketInput{BucketName: &name})
}

// A new entity per request or per delivery under a new ID: not a retry.
func (c *Cloud) handleCreate(w http.ResponseWriter, r *http.Request) {
	c.createTenantDatabase(r.Context(), r.FormValue("tenant"))
	c.createDatabase(r.Context(), "db-"+uuid.NewString())
	c.makeDB(r.Context(), "db-"+uuid.NewString())
}

func (c *Cloud) HandleTenantCreated(ctx context.Context, m types.Message) error {
	return c.createDatabase(ctx, "db-"+uuid.NewString())
}

// Scheduler runs a function every interval (a cron-style wrapper).
type Scheduler2 interface {
	Every(name string, interval time.Duration, fn func(ctx context.Context, scheduled time.Time) error)
}

// The reminder prefix is taken from the clock once per replica: every
// replica mails every customer.
func registerReminders(s Scheduler2, rdb *redis.Client, customers []string) {
	var once sync.Once
	var prefix string
	s.Every("reminders", time.Hour, func(ctx context.Context, scheduled time.Time) error {
		once.Do(func() { prefix = "reminder:" + strconv.FormatInt(time.Now().Unix(), 10) + ":" })
		for _, c := range customers {
			if ok, err := rdb.SetNX(ctx, prefix+c, 1, 23*time.Hour).Result(); err != nil || !ok { // want `built from time.Now \(prefix, set once\) at corpus.go:\d+, made once per process, reaches the Redis key of SetNX`
				return err
			}
		}
		return nil
	})
}

// A charge stamped with the time of the run, in a function Every runs.
func registerCharges(s Scheduler2, sc *stripe.Client) {
	s.Every("charges", time.Hour, func(ctx context.Context, scheduled time.Time) error {
		return chargeOnce(ctx, sc, "charge-"+strconv.FormatInt(time.Now().UnixNano(), 10)) // want `inside the function scheduled by Every`
	})
	s.Every("charges-slot", time.Hour, func(ctx context.Context, scheduled time.Time) error {
		return chargeOnce(ctx, sc, "charge-"+scheduled.Format(time.RFC3339))
	})
}

// A search for a free short code: a fresh key per turn is the point.
func shorten(ctx context.Context, rdb *redis.Client, url string) (string, error) {
	for {
		code := xid.New().String()[:8]
		ok, err := rdb.SetNX(ctx, "short:"+code, url, 0).Result()
		if err != nil {
			return "", err
		}
		if ok {
			return code, nil
		}
	}
}

// A count of charges to make, each its own: no retry.
func chargeMany(ctx context.Context, sc *stripe.Client, n int) {
	for i := 0; i < n; i++ {
		chargeOnce(ctx, sc, uuid.NewString())
	}
	for range n {
		chargeOnce(ctx, sc, uuid.NewString())
	}
	for range 200 {
		chargeOnce(ctx, sc, uuid.NewString())
	}
	for i := range 7 {
		chargeOnce(ctx, sc, fmt.Sprint("e", i))
	}
}

// Retry loops known by their condition, their wait, or their way out on
// success.
func chargeUntil(ctx context.Context, sc *stripe.Client, maxTries int) error {
	var err error
	for i := 0; i < maxTries; i++ {
		err = chargeOnce(ctx, sc, uuid.NewString()) // want `inside the retry loop`
	}
	for i := 0; i < 3; i++ {
		chargeOnce(ctx, sc, uuid.NewString()) // want `inside the retry loop`
		time.Sleep(time.Second)
	}
	for i := 0; i < 3; i++ {
		if err := chargeOnce(ctx, sc, uuid.NewString()); err == nil { // want `inside the retry loop`
			break
		}
	}
	for range maxTries {
		err = chargeOnce(ctx, sc, uuid.NewString()) // want `inside the retry loop`
	}
	return err
}

// JobQueue enqueues work; enqueueing is no run of a job.
type JobQueue struct{ q *sqs.Client }

func (j *JobQueue) enqueueJob(ctx context.Context, body string) error {
	_, err := j.q.SendMessage(ctx, &sqs.SendMessageInput{MessageBody: &body, MessageDeduplicationId: aws.String(uuid.NewString())})
	return err
}

// A job run by name.
func runSettlementJob(ctx context.Context, sc *stripe.Client) error {
	return chargeOnce(ctx, sc, "settle-"+uuid.NewString()) // want `inside the scheduled job runSettlementJob`
}

// Audit is an event of another kind than the one delivered: a new event
// with its own new ID.
type AuditEnvelope struct {
	ID   string
	What string
}

func audited(b interface {
	Record(ctx context.Context, e AuditEnvelope) error
}) func(ctx context.Context, m Envelope) error {
	return func(ctx context.Context, m Envelope) error {
		return b.Record(ctx, AuditEnvelope{ID: xid.New().String(), What: "received " + m.ID})
	}
}
