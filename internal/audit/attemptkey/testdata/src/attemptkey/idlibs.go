package attemptkey

import (
	"context"
	"strconv"
	"time"

	"cloud.google.com/go/pubsub"
	"github.com/bwmarrin/snowflake"
	jnanoid "github.com/jaevor/go-nanoid"
	"github.com/lithammer/shortuuid/v4"
	gonanoid "github.com/matoous/go-nanoid/v2"
	"github.com/sony/sonyflake"
	"github.com/stripe/stripe-go/v82"
	"github.com/teris-io/shortid"
)

// ID libraries besides the UUID ones hand out a new ID on every call too.
func chargeNanoid(ctx context.Context, sc *stripe.Client, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(gonanoid.Must()) // want `made by gonanoid.Must at idlibs.go:\d+ inside the retry loop`
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func chargeNanoidAlphabet(ctx context.Context, sc *stripe.Client, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		key, _ := gonanoid.Generate("0123456789abcdef", 24)
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount)}
		params.SetIdempotencyKey(key) // want `made by gonanoid.Generate at idlibs.go:\d+ inside the retry loop`
		if _, err = sc.V1PaymentIntents.Create(ctx, params); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func chargeShortid(ctx context.Context, c *charges, amount int64) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.charge(ctx, "charge-"+shortid.MustGenerate(), amount); err == nil { // want `made by shortid.MustGenerate at idlibs.go:\d+ inside the retry loop`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A generator's method: a snowflake node's, a sonyflake's, a shortid's.
type idWorker struct {
	node *snowflake.Node
	sf   *sonyflake.Sonyflake
	sid  *shortid.Shortid
	c    *charges
}

func (w *idWorker) handleSnowflake(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, w.node.Generate().String(), 100) // want `made by snowflake.Node.Generate at idlibs.go:\d+ inside the consumer handleSnowflake`
}

func (w *idWorker) handleSonyflake(ctx context.Context, m *pubsub.Message) error {
	id, err := w.sf.NextID()
	if err != nil {
		return err
	}
	return w.c.charge(ctx, "sf-"+strconv.FormatUint(id, 10), 100) // want `made by sonyflake.Sonyflake.NextID at idlibs.go:\d+ inside the consumer handleSonyflake`
}

func (w *idWorker) handleShortidWorker(ctx context.Context, m *pubsub.Message) error {
	id, _ := w.sid.Generate()
	return w.c.charge(ctx, id, 100) // want `made by shortid.Shortid.Generate at idlibs.go:\d+ inside the consumer handleShortidWorker`
}

func (w *idWorker) handleShortUUID(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, shortuuid.New(), 100) // want `made by shortuuid.New at idlibs.go:\d+ inside the consumer handleShortUUID`
}

// A generator function an ID library made, in a package variable or a
// local one.
var nextKey, _ = jnanoid.Standard(21)

func (w *idWorker) handleGenerated(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, nextKey(), 100) // want `made by nextKey \(made by nanoid.Standard\) at idlibs.go:\d+ inside the consumer handleGenerated`
}

func chargeGenerated(ctx context.Context, c *charges, amount int64) error {
	gen, err := jnanoid.CustomASCII("0123456789", 12)
	if err != nil {
		return err
	}
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.charge(ctx, gen(), amount); err == nil { // want `made by gen \(made by nanoid.CustomASCII\) at idlibs.go:\d+ inside the retry loop`
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// Made once, before the retries, the ID is the operation's.
func chargeNanoidOnce(ctx context.Context, c *charges, amount int64) error {
	key := gonanoid.Must()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = c.charge(ctx, key, amount); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A name-based short UUID and a parsed snowflake are derived from their
// input: the same message gives the same key.
func (w *idWorker) handleNamespaced(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, shortuuid.NewWithNamespace("orders/"+m.ID), 100)
}

func (w *idWorker) handleParsed(ctx context.Context, m *pubsub.Message) error {
	id, err := snowflake.ParseString(m.Attributes["order_id"])
	if err != nil {
		return err
	}
	return w.c.charge(ctx, "order-"+id.String(), 100)
}

// Making a generator makes no ID: a node made per delivery still keys the
// charge by the message.
func (w *idWorker) handleNewNode(ctx context.Context, m *pubsub.Message) error {
	node, err := snowflake.NewNode(1)
	if err != nil {
		return err
	}
	_ = node
	return w.c.charge(ctx, "msg-"+m.ID, 100)
}

// A loop that waits for an acknowledgement and sends again sends the same
// job each turn, under a new nanoid: it retries.
func sendNanoidUntilAcked(ctx context.Context, q jobSender, acks <-chan string, payload []byte) {
	for {
		_ = q.Send(ctx, Job{ID: gonanoid.Must(), Payload: payload}) // want `made by gonanoid.Must at idlibs.go:\d+ inside the retry loop at idlibs.go:\d+ reaches the ID of a Job sent by Send`
		wait, cancel := context.WithTimeout(ctx, 5*time.Second)
		select {
		case id := <-acks:
			if id != "" {
				cancel()
				return
			}
		case <-wait.Done():
		}
		cancel()
	}
}

// A counted loop that sends the same charge again after each wait, under
// a key from any ID library.
func chargeNanoidEvery(ctx context.Context, sc *stripe.Client) {
	for i := 0; i < 3; i++ {
		chargeOnce(ctx, sc, gonanoid.Must()) // want `made by gonanoid.Must at idlibs.go:\d+ inside the retry loop`
		time.Sleep(time.Second)
	}
}
