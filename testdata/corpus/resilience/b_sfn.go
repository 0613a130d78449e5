package resilience

import (
	"encoding/json"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/google/uuid"
)

// ReturnsAPI starts the returns state machine; Step Functions refuses a
// second standard execution under a name that is running or recent.
type ReturnsAPI struct {
	SFN          *sfn.Client
	StateMachine string
}

type returnRequest struct {
	OrderID string `json:"order_id"`
	LineID  string `json:"line_id"`
}

// StartReturn names the execution with a UUID per request: a retried
// POST starts a second return, refunding the line twice.
//
// corpus: bug attemptkey
// modelled on: awsdocs/aws-doc-sdk-examples python/example_code/stepfunctions/sfn_new_invocation.py (start_execution with a state machine ARN, an execution name and input)
func (a *ReturnsAPI) StartReturn(w http.ResponseWriter, r *http.Request) {
	var in returnRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	input, _ := json.Marshal(in)
	out, err := a.SFN.StartExecution(r.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(a.StateMachine),
		Name:            aws.String("return-" + uuid.NewString()),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		http.Error(w, "could not start", http.StatusBadGateway)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"execution": aws.ToString(out.ExecutionArn)})
}

// StartReturnForLine names the execution after the order line returned.
//
// corpus: ok attemptkey
// modelled on: awsdocs/aws-doc-sdk-examples python/example_code/stepfunctions/sfn_new_invocation.py (start_execution with a state machine ARN, an execution name and input)
func (a *ReturnsAPI) StartReturnForLine(w http.ResponseWriter, r *http.Request) {
	var in returnRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	input, _ := json.Marshal(in)
	out, err := a.SFN.StartExecution(r.Context(), &sfn.StartExecutionInput{
		StateMachineArn: aws.String(a.StateMachine),
		Name:            aws.String("return-" + in.OrderID + "-" + in.LineID),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		http.Error(w, "could not start", http.StatusBadGateway)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"execution": aws.ToString(out.ExecutionArn)})
}
