package resilience

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/matryer/try"
)

// errShipBusy marks an answer from the carrier worth asking again.
var errShipBusy = errors.New("carrier: busy")

// CarrierClient books shipments with the carrier's API, which takes an
// Idempotency-Key on each booking.
type CarrierClient struct {
	HTTP    *http.Client
	BaseURL string
}

func (c *CarrierClient) book(ctx context.Context, key, parcelID string) error {
	body := fmt.Sprintf(`{"parcel_id":%q}`, parcelID)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v2/bookings", strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return errors.Join(errShipBusy, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		return errShipBusy
	}
	return nil
}

// Book retries by calling itself after a pause, and draws the key on
// each call: a booking the carrier made before it answered 503 is made
// again.
//
// corpus: bug attemptkey
// modelled on: wopta/goworkspace lib/http.go (RetryDo: send the request again after a sleep while it fails)
func (c *CarrierClient) Book(ctx context.Context, parcelID string, attempt int) error {
	err := c.book(ctx, "book-"+uuid.NewString(), parcelID)
	if err != nil && errors.Is(err, errShipBusy) && attempt < 4 {
		time.Sleep(time.Duration(attempt+1) * 300 * time.Millisecond)
		return c.Book(ctx, parcelID, attempt+1)
	}
	return err
}

// BookKeyed takes the key from its first caller and hands the same one to
// each call it makes of itself.
//
// corpus: ok attemptkey
// modelled on: wopta/goworkspace lib/http.go (RetryDo: send the request again after a sleep while it fails)
func (c *CarrierClient) BookKeyed(ctx context.Context, key, parcelID string, attempt int) error {
	err := c.book(ctx, key, parcelID)
	if err != nil && errors.Is(err, errShipBusy) && attempt < 4 {
		time.Sleep(time.Duration(attempt+1) * 300 * time.Millisecond)
		return c.BookKeyed(ctx, key, parcelID, attempt+1)
	}
	return err
}

// BookTry hands the booking to matryer/try, which calls it with the
// attempt's number until it stops failing; the key is drawn in it.
//
// corpus: bug attemptkey
// modelled on: matryer/try README.md (try.Do calls the function with the attempt number until it succeeds)
func (c *CarrierClient) BookTry(ctx context.Context, parcelID string) error {
	return try.Do(func(attempt int) (bool, error) {
		err := c.book(ctx, uuid.NewString(), parcelID)
		if err != nil {
			time.Sleep(200 * time.Millisecond)
		}
		return attempt < 5 && errors.Is(err, errShipBusy), err
	})
}

// BookTryOnce names the booking after the parcel, the same for each
// attempt try makes.
//
// corpus: ok attemptkey
// modelled on: matryer/try README.md (try.Do calls the function with the attempt number until it succeeds)
func (c *CarrierClient) BookTryOnce(ctx context.Context, parcelID string) error {
	key := "book-" + parcelID
	return try.Do(func(attempt int) (bool, error) {
		err := c.book(ctx, key, parcelID)
		if err != nil {
			time.Sleep(200 * time.Millisecond)
		}
		return attempt < 5 && errors.Is(err, errShipBusy), err
	})
}
