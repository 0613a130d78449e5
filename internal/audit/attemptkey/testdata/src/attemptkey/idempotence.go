package attemptkey

import (
	"context"
	"net/http"

	"github.com/google/uuid"
)

// Wise takes its key in X-idempotence-uuid: a header named for
// idempotence is a key's sink like Idempotency-Key.
func (w *Webhooks) fundTransfer(ctx context.Context, url string) error {
	var err error
	for range 3 {
		req, _ := http.NewRequestWithContext(ctx, "POST", url, nil)
		req.Header.Set("X-idempotence-uuid", uuid.NewString()) // want `inside the retry loop at idempotence.go:\d+ reaches the X-Idempotence-Uuid header`
		if _, err = w.client.Do(req); err == nil {
			return nil
		}
	}
	return err
}
