package attemptkey

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
)

// A workflow's ID is the key its start is deduplicated by: a second start
// under a running ID is refused.
type checkoutAPI struct {
	tc  client.Client
	sfn *sfn.Client
}

func (a *checkoutAPI) start(w http.ResponseWriter, r *http.Request) {
	var in struct{ CartID string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	opts := client.StartWorkflowOptions{ID: "checkout-" + uuid.NewString(), TaskQueue: "checkout"} // want `for each request to start reaches the workflow ID of a StartWorkflowOptions`
	if _, err := a.tc.ExecuteWorkflow(r.Context(), opts, "Checkout", in.CartID); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func (a *checkoutAPI) startForCart(w http.ResponseWriter, r *http.Request) {
	var in struct{ CartID string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	opts := client.StartWorkflowOptions{ID: "checkout-" + in.CartID, TaskQueue: "checkout"}
	if _, err := a.tc.ExecuteWorkflow(r.Context(), opts, "Checkout", in.CartID); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

func signalCart(ctx context.Context, tc client.Client, cartID string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		var opts client.StartWorkflowOptions
		opts.ID = "cart-" + uuid.NewString()                                                                             // want `inside the retry loop at temporal.go:\d+ reaches the workflow ID of a StartWorkflowOptions`
		if _, err = tc.SignalWithStartWorkflow(ctx, "cart-"+uuid.NewString(), "add", cartID, opts, "Cart"); err == nil { // want `reaches the workflowID parameter of SignalWithStartWorkflow`
			return nil
		}
	}
	return err
}

// A start from a command-line starter is no attempt of anything.
func startOnce(ctx context.Context, tc client.Client) error {
	_, err := tc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "backfill-" + uuid.NewString(), TaskQueue: "ops"}, "Backfill")
	return err
}

// Step Functions refuses a second execution under a running name.
func (a *checkoutAPI) startExecution(w http.ResponseWriter, r *http.Request) {
	name := "checkout-" + uuid.NewString()
	if _, err := a.sfn.StartExecution(r.Context(), &sfn.StartExecutionInput{Name: &name}); err != nil { // want `for each request to startExecution reaches the workflow ID of a StartExecutionInput`
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
}
