// Package client is a minimal copy of the Temporal Go SDK's client.
package client

import "context"

type StartWorkflowOptions struct {
	ID        string
	TaskQueue string
}

type WorkflowRun interface {
	GetID() string
	GetRunID() string
}

type Client interface {
	ExecuteWorkflow(ctx context.Context, options StartWorkflowOptions, workflow any, args ...any) (WorkflowRun, error)
	SignalWithStartWorkflow(ctx context.Context, workflowID string, signalName string, signalArg any, options StartWorkflowOptions, workflow any, workflowArgs ...any) (WorkflowRun, error)
}
