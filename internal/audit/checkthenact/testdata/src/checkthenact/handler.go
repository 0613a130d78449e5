package checkthenact

import "context"

type Event struct{ ID string }

func handleWebhook(ctx context.Context, in *Inbox, ev Event) error {
	seen, err := in.alreadyProcessed(ctx, ev.ID)
	if err != nil || seen {
		return err
	}
	if err := fulfil(ctx, ev); err != nil {
		return err
	}
	return in.markProcessed(ctx, ev.ID) // want `INSERT into webhook_inbox \(by markProcessed, at inbox.go:20\) after the SELECT in alreadyProcessed at inbox.go:15, called at handler.go:8 races with a concurrent retry`
}

// The write is atomic: nothing to report, whatever checks before it.
func handleWebhookAtomic(ctx context.Context, in *Inbox, ev Event) error {
	seen, err := in.alreadyProcessed(ctx, ev.ID)
	if err != nil || seen {
		return err
	}
	if err := fulfil(ctx, ev); err != nil {
		return err
	}
	return in.record(ctx, ev.ID)
}

// The read comes after the write.
func handleWebhookReadBack(ctx context.Context, in *Inbox, ev Event) error {
	if err := in.record(ctx, ev.ID); err != nil {
		return err
	}
	return in.lastSeen(ctx, ev.ID)
}

func fulfil(ctx context.Context, ev Event) error { return nil }
