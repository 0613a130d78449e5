package resilience

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"go.temporal.io/sdk/client"
)

// FulfilmentAPI starts the fulfilment workflow of an order on Temporal,
// which refuses a second run under the ID of one that is running.
type FulfilmentAPI struct {
	Temporal client.Client
	Log      *slog.Logger
}

type fulfilRequest struct {
	OrderID string `json:"order_id"`
	Rush    bool   `json:"rush"`
}

// StartFulfilment names the workflow with a fresh UUID: a client that
// retries the POST after a timeout starts a second fulfilment, which
// ships the order twice.
//
// corpus: bug attemptkey
// modelled on: JieeiroSst/temporal-workflow dynamic/starter/main.go (a workflow started under "dynamic_" + uuid.New())
func (a *FulfilmentAPI) StartFulfilment(w http.ResponseWriter, r *http.Request) {
	var in fulfilRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	opts := client.StartWorkflowOptions{
		ID:        "fulfil-" + uuid.New().String(),
		TaskQueue: "fulfilment",
	}
	run, err := a.Temporal.ExecuteWorkflow(r.Context(), opts, "Fulfil", in.OrderID, in.Rush)
	if err != nil {
		http.Error(w, "could not start", http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"workflow_id": run.GetID(), "run_id": run.GetRunID()})
}

// StartFulfilmentForOrder names the workflow after the order: a retried
// POST finds the running workflow instead of starting another.
//
// corpus: ok attemptkey
// modelled on: JieeiroSst/temporal-workflow dynamic/starter/main.go (a workflow started under "dynamic_" + uuid.New())
func (a *FulfilmentAPI) StartFulfilmentForOrder(w http.ResponseWriter, r *http.Request) {
	var in fulfilRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	opts := client.StartWorkflowOptions{
		ID:        "fulfil-" + in.OrderID,
		TaskQueue: "fulfilment",
	}
	run, err := a.Temporal.ExecuteWorkflow(r.Context(), opts, "Fulfil", in.OrderID, in.Rush)
	if err != nil {
		http.Error(w, "could not start", http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusAccepted)
	_ = json.NewEncoder(w).Encode(map[string]string{"workflow_id": run.GetID(), "run_id": run.GetRunID()})
}

type orderPaid struct {
	EventID string `json:"event_id"`
	OrderID string `json:"order_id"`
}

// SubscribePaid starts a fulfilment for every paid order announced on
// JetStream; the workflow's ID is drawn per delivery, so an announcement
// redelivered after a lost ack starts a second one.
//
// corpus: bug attemptkey
// modelled on: JieeiroSst/temporal-workflow dynamic/starter/main.go (a workflow started under "dynamic_" + uuid.New())
func (a *FulfilmentAPI) SubscribePaid(js nats.JetStreamContext) (*nats.Subscription, error) {
	return js.QueueSubscribe("orders.paid", "fulfilment", func(m *nats.Msg) {
		var ev orderPaid
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			a.Log.Error("bad orders.paid", "err", err)
			_ = m.Term()
			return
		}
		var opts client.StartWorkflowOptions
		opts.ID = "fulfil-" + ev.OrderID + "-" + uuid.NewString()
		opts.TaskQueue = "fulfilment"
		if _, err := a.Temporal.ExecuteWorkflow(context.Background(), opts, "Fulfil", ev.OrderID, false); err != nil {
			a.Log.Error("start fulfilment", "order", ev.OrderID, "err", err)
			_ = m.Nak()
			return
		}
		_ = m.Ack()
	}, nats.ManualAck(), nats.Durable("fulfilment"))
}

// SubscribePaidByOrder names the workflow after the order the event is
// about, the same on every delivery.
//
// corpus: ok attemptkey
// modelled on: JieeiroSst/temporal-workflow dynamic/starter/main.go (a workflow started under "dynamic_" + uuid.New())
func (a *FulfilmentAPI) SubscribePaidByOrder(js nats.JetStreamContext) (*nats.Subscription, error) {
	return js.QueueSubscribe("orders.paid", "fulfilment", func(m *nats.Msg) {
		var ev orderPaid
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			a.Log.Error("bad orders.paid", "err", err)
			_ = m.Term()
			return
		}
		opts := client.StartWorkflowOptions{ID: "fulfil-" + ev.OrderID, TaskQueue: "fulfilment"}
		if _, err := a.Temporal.ExecuteWorkflow(context.Background(), opts, "Fulfil", ev.OrderID, false); err != nil {
			a.Log.Error("start fulfilment", "order", ev.OrderID, "err", err)
			_ = m.Nak()
			return
		}
		_ = m.Ack()
	}, nats.ManualAck(), nats.Durable("fulfilment"))
}
