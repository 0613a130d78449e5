package attemptkey

import (
	"context"
	"fmt"
	"time"

	"cloud.google.com/go/cloudtasks/apiv2"
	"cloud.google.com/go/cloudtasks/apiv2/cloudtaskspb"
	"cloud.google.com/go/pubsub"
	"github.com/google/uuid"
)

// Pub/Sub counts the deliveries of a message in a pointer, nil when the
// subscription keeps no count: read through it, it is the number of the
// delivery, new on each.
func receiveCharges(ctx context.Context, sub *pubsub.Subscription, c *charges) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		n := 0
		if m.DeliveryAttempt != nil {
			n = *m.DeliveryAttempt
		}
		if err := c.charge(ctx, fmt.Sprintf("%s-%d", m.ID, n), 100); err != nil { // want `made by m.DeliveryAttempt, the number of the attempt at gcp.go:\d+ inside the message handler`
			m.Nack()
			return
		}
		m.Ack()
	})
}

func receiveChargesDeref(ctx context.Context, sub *pubsub.Subscription, c *charges) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		if err := c.charge(ctx, m.ID+"-"+fmt.Sprint(*m.DeliveryAttempt), 100); err != nil { // want `made by m.DeliveryAttempt, the number of the attempt`
			m.Nack()
			return
		}
		m.Ack()
	})
}

// The count may still decide what to do; the key is the message's own ID.
func receiveChargesByID(ctx context.Context, sub *pubsub.Subscription, c *charges) error {
	return sub.Receive(ctx, func(ctx context.Context, m *pubsub.Message) {
		if m.DeliveryAttempt != nil && *m.DeliveryAttempt > 5 {
			m.Ack()
			return
		}
		if err := c.charge(ctx, "pubsub-"+m.ID, 100); err != nil {
			m.Nack()
			return
		}
		m.Ack()
	})
}

// A Cloud Tasks task's name is its dedup key: Cloud Tasks refuses a
// second task under a name it has seen.
func scheduleReminder(ctx context.Context, tc *cloudtasks.Client, queue, orderID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = tc.CreateTask(ctx, &cloudtaskspb.CreateTaskRequest{
			Parent: queue,
			Task: &cloudtaskspb.Task{
				Name:        queue + "/tasks/reminder-" + uuid.NewString(), // want `inside the retry loop at gcp.go:\d+ reaches the Name of the Task of the request to CreateTask`
				MessageType: &cloudtaskspb.Task_HttpRequest{HttpRequest: &cloudtaskspb.HttpRequest{Url: "https://example.com/remind/" + orderID}},
			},
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func scheduleReminderNamed(ctx context.Context, tc *cloudtasks.Client, queue, orderID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = tc.CreateTask(ctx, &cloudtaskspb.CreateTaskRequest{
			Parent: queue,
			Task: &cloudtaskspb.Task{
				Name:        queue + "/tasks/reminder-" + orderID,
				MessageType: &cloudtaskspb.Task_HttpRequest{HttpRequest: &cloudtaskspb.HttpRequest{Url: "https://example.com/remind/" + orderID}},
			},
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A task built before it is handed over is named the same way.
func scheduleReminderBuilt(ctx context.Context, tc *cloudtasks.Client, queue, orderID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		task := &cloudtaskspb.Task{Name: fmt.Sprintf("%s/tasks/%s", queue, uuid.NewString())} // want `inside the retry loop at gcp.go:\d+ reaches the Name of the Task of the request to CreateTask`
		if _, err = tc.CreateTask(ctx, &cloudtaskspb.CreateTaskRequest{Parent: queue, Task: task}); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// A task left unnamed gets a name from Cloud Tasks; a trace ID in its body
// deduplicates nothing.
func scheduleReminderUnnamed(ctx context.Context, tc *cloudtasks.Client, queue, orderID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = tc.CreateTask(ctx, &cloudtaskspb.CreateTaskRequest{
			Parent: queue,
			Task: &cloudtaskspb.Task{
				MessageType: &cloudtaskspb.Task_HttpRequest{HttpRequest: &cloudtaskspb.HttpRequest{Url: "https://example.com/remind/" + orderID + "?trace=" + uuid.NewString()}},
			},
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// The client's Message is an alias of a type in an internal package; a
// function taking one takes a message Pub/Sub delivered.
type billingWorker struct{ c *charges }

func (w *billingWorker) bill(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, uuid.NewString(), 100) // want `inside the consumer bill at gcp.go:\d+ reaches charge`
}

func (w *billingWorker) billByID(ctx context.Context, m *pubsub.Message) error {
	return w.c.charge(ctx, "bill-"+m.ID, 100)
}

// A name set on a request held from before the retries.
func scheduleReminderField(ctx context.Context, tc *cloudtasks.Client, queue string) error {
	req := &cloudtaskspb.CreateTaskRequest{Parent: queue, Task: &cloudtaskspb.Task{}}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req.Task.Name = queue + "/tasks/" + uuid.NewString() // want `inside the retry loop at gcp.go:\d+ reaches the Name of the Task of the request to CreateTask`
		if _, err = tc.CreateTask(ctx, req); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

func scheduleReminderFieldNamed(ctx context.Context, tc *cloudtasks.Client, queue, orderID string) error {
	req := &cloudtaskspb.CreateTaskRequest{Parent: queue, Task: &cloudtaskspb.Task{}}
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		req.Task.Name = queue + "/tasks/reminder-" + orderID
		if _, err = tc.CreateTask(ctx, req); err == nil {
			return nil
		}
		time.Sleep(time.Second)
	}
	return err
}

// Pub/Sub assigns a message's ID; the publisher's dedup key rides in an
// attribute.
type psRow struct {
	ID      int64
	EventID string
	Payload []byte
}

type psMarks interface {
	MarkPublished(ctx context.Context, id int64) error
}

func relayToPubSub(ctx context.Context, t *pubsub.Topic, marks psMarks, rows []psRow) {
	for _, row := range rows {
		res := t.Publish(ctx, &pubsub.Message{Data: row.Payload, Attributes: map[string]string{"event_id": uuid.NewString()}}) // want `inside the relay loop over row at gcp.go:\d+ reaches the "event_id" entry of a map sent by Publish`
		if _, err := res.Get(ctx); err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}

func relayToPubSubKeyed(ctx context.Context, t *pubsub.Topic, marks psMarks, rows []psRow) {
	for _, row := range rows {
		res := t.Publish(ctx, &pubsub.Message{Data: row.Payload, Attributes: map[string]string{"event_id": row.EventID}})
		if _, err := res.Get(ctx); err != nil {
			continue
		}
		_ = marks.MarkPublished(ctx, row.ID)
	}
}
