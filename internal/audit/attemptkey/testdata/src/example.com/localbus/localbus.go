// Package localbus is a service's own in-process event bus, in a package
// of its own: Publish calls the handlers Subscribe kept, in the
// publisher's call.
package localbus

import "context"

type Event struct {
	ID     string
	Amount int64
}

type Bus struct {
	handlers map[string][]func(context.Context, *Event) error
}

func (b *Bus) Subscribe(topic string, fn func(context.Context, *Event) error) { // want Subscribe:"keeps the handlers it is given"
	b.handlers[topic] = append(b.handlers[topic], fn)
}

func (b *Bus) Publish(ctx context.Context, topic string, ev *Event) error {
	for _, fn := range b.handlers[topic] {
		if err := fn(ctx, ev); err != nil {
			return err
		}
	}
	return nil
}
