// Package cqrs is a minimal copy of watermill's cqrs component, whose
// router calls a handler for each delivery of its command or event.
package cqrs

import "context"

type CommandHandler interface {
	HandlerName() string
	NewCommand() any
	Handle(ctx context.Context, cmd any) error
}

type EventHandler interface {
	HandlerName() string
	NewEvent() any
	Handle(ctx context.Context, event any) error
}

func NewCommandHandler[Command any](handlerName string, handleFunc func(ctx context.Context, cmd *Command) error) CommandHandler {
	return nil
}

func NewEventHandler[T any](handlerName string, handleFunc func(ctx context.Context, event *T) error) EventHandler {
	return nil
}
