package attemptkey

import (
	"context"

	"github.com/google/uuid"
)

// fakeTrail records what the relay appends, each entry under a new ID.
type fakeTrail struct {
	entries []relayEnvelope
}

func (f *fakeTrail) Append(ctx context.Context, topic string, payload []byte) error { // want Append:"makes uuid.NewString"
	f.entries = append(f.entries, relayEnvelope{ID: uuid.NewString(), Topic: topic, Body: payload})
	return nil
}
