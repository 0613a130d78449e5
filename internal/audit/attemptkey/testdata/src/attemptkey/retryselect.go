package attemptkey

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
)

func postKeyed(ctx context.Context, hc *http.Client, url string, body []byte, key string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// One key made before a loop that waits on time.After between attempts
// and leaves when one succeeds: a retry loop, not a ticker, so the key is
// the operation's.
func bookOnce(ctx context.Context, hc *http.Client, url string, body []byte) error {
	key := uuid.NewString()
	for i := 0; i < 4; i++ {
		code, err := postKeyed(ctx, hc, url, body, key)
		if err == nil && code < 500 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second << i):
		}
	}
	return nil
}

// The key made inside that loop: a new one per attempt.
func bookEachTime(ctx context.Context, hc *http.Client, url string, body []byte) error {
	for i := 0; i < 4; i++ {
		code, err := postKeyed(ctx, hc, url, body, uuid.NewString()) // want `inside the retry loop`
		if err == nil && code < 500 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second << i):
		}
	}
	return nil
}

// A loop counting its tries: each try sends a new key.
func bookTries(ctx context.Context, hc *http.Client, url string, body []byte) {
	for try := 0; try < 3; try++ {
		if _, err := postKeyed(ctx, hc, url, body, uuid.NewString()); err != nil { // want `inside the retry loop`
			continue
		}
		break
	}
}

// SubmitTask is a job submitted to a queue under its own ID.
type SubmitTask struct {
	ID      string
	Payload string
}

func submit(ctx context.Context, t SubmitTask) error { return nil }

// Ten tasks, a pause between them: each turn submits another task, its
// ID and its data both made from the counter.
func submitTen(ctx context.Context) {
	for i := 0; i < 10; i++ {
		if err := submit(ctx, SubmitTask{ID: fmt.Sprintf("task-%d", i), Payload: fmt.Sprintf("data for task %d", i)}); err != nil {
			continue
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The same task sent again with the turn's number in its ID: a retry.
func submitRetrying(ctx context.Context, payload string) {
	for attempt := 0; attempt < 3; attempt++ {
		if err := submit(ctx, SubmitTask{ID: fmt.Sprintf("task-%d", attempt), Payload: payload}); err == nil { // want `attempt counter attempt`
			return
		}
		time.Sleep(time.Second)
	}
}
