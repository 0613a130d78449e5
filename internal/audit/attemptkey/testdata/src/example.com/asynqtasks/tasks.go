// Package asynqtasks builds a service's asynq tasks, as asynq's README
// lays them out: one constructor per task type.
package asynqtasks

import (
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"
)

type reportPayload struct {
	AccountID   string    `json:"account_id"`
	RequestedAt time.Time `json:"requested_at"`
}

func NewReportTask(accountID string) (*asynq.Task, error) { // want NewReportTask:"returns a task whose payload carries the RequestedAt of the reportPayload made by time.Now"
	payload, err := json.Marshal(reportPayload{AccountID: accountID, RequestedAt: time.Now()})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask("report:build", payload), nil
}

func NewReportTaskByAccount(accountID string) (*asynq.Task, error) {
	payload, err := json.Marshal(reportPayload{AccountID: accountID})
	if err != nil {
		return nil, err
	}
	return asynq.NewTask("report:build", payload), nil
}
