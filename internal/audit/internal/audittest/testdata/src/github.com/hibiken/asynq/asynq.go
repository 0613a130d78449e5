// Package asynq is a minimal copy of github.com/hibiken/asynq's signatures.
package asynq

import "context"

type Task struct{}

func NewTask(typename string, payload []byte) *Task { return &Task{} }
func (t *Task) Type() string                        { return "" }
func (t *Task) Payload() []byte                     { return nil }

type HandlerFunc func(ctx context.Context, t *Task) error

type ServeMux struct{}

func NewServeMux() *ServeMux                                                                { return &ServeMux{} }
func (mux *ServeMux) HandleFunc(pattern string, handler func(context.Context, *Task) error) {}

func GetTaskID(ctx context.Context) (string, bool) { return "", false }
