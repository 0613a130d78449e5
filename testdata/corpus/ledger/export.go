package ledger

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"
)

// BankExporter uploads payment files to the bank's API.
type BankExporter struct {
	client  *http.Client
	baseURL string
}

// NewBankExporter returns a BankExporter.
func NewBankExporter(client *http.Client, baseURL string) *BankExporter {
	return &BankExporter{client: client, baseURL: baseURL}
}

func (b *BankExporter) upload(ctx context.Context, file []byte, key string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.baseURL+"/payment-files", bytes.NewReader(file))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Idempotency-Key", key)
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Export uploads a batch's payment file, retrying on timeouts and 5xx; each
// attempt is numbered in its key so the bank's logs tell them apart.
//
// corpus: bug attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (an HTTP call retried with exponential backoff per attempt)
func (b *BankExporter) Export(ctx context.Context, batchID string, file []byte) error {
	var lastErr error
	for attempt := 1; attempt <= 4; attempt++ {
		code, err := b.upload(ctx, file, fmt.Sprintf("%s-%d", batchID, attempt))
		switch {
		case err == nil && code < 300:
			return nil
		case err == nil && code < 500:
			return fmt.Errorf("bank refused batch %s: status %d", batchID, code)
		case err == nil:
			lastErr = fmt.Errorf("bank: status %d", code)
		default:
			lastErr = err
		}
		time.Sleep(time.Duration(1<<attempt) * 250 * time.Millisecond)
	}
	return fmt.Errorf("export %s: %w", batchID, lastErr)
}

// ExportOnce uploads a batch's payment file, retrying on timeouts and 5xx;
// the key is the batch and the file's checksum, the same on every attempt.
//
// corpus: ok attemptkey
// modelled on: DanDo385/go-edu minis/08-http-client-retries/README.md (an HTTP call retried with exponential backoff per attempt)
func (b *BankExporter) ExportOnce(ctx context.Context, batchID string, file []byte) error {
	sum := sha256.Sum256(file)
	key := batchID + "-" + hex.EncodeToString(sum[:8])
	var lastErr error
	for attempt := 1; attempt <= 4; attempt++ {
		code, err := b.upload(ctx, file, key)
		switch {
		case err == nil && code < 300:
			return nil
		case err == nil && code < 500:
			return fmt.Errorf("bank refused batch %s: status %d", batchID, code)
		case err == nil:
			lastErr = fmt.Errorf("bank: status %d", code)
		default:
			lastErr = err
		}
		time.Sleep(time.Duration(1<<attempt) * 250 * time.Millisecond)
	}
	return fmt.Errorf("export %s: %w", batchID, lastErr)
}
