// Package jobspec builds the jobs a service enqueues, each under an ID it
// makes, in a package of its own: the check follows the constructor across
// the import through its facts.
package jobspec

import (
	"time"

	"github.com/google/uuid"
)

// WorkItem is a unit of work a queue hands to a worker.
type WorkItem struct {
	ItemID    string
	Kind      string
	Payload   []byte
	CreatedAt time.Time
}

// New returns a work item under a new ID.
func New(kind string, payload []byte) *WorkItem {
	w := &WorkItem{Kind: kind, Payload: payload, CreatedAt: time.Now()}
	w.ItemID = uuid.NewString()
	return w
}

// For returns a work item under the ID its caller gives.
func For(id, kind string, payload []byte) *WorkItem {
	return &WorkItem{ItemID: id, Kind: kind, Payload: payload}
}
