package cacheresponse

import (
	"context"
	"encoding/json"

	"github.com/redis/rueidis"
)

type checkout struct{ client rueidis.Client }

// A rueidis SET NX claim, marked "done" with a SET of the flag.
func (c *checkout) place(ctx context.Context, requestID string) (*receipt, error) {
	key := "checkout:req:" + requestID
	err := c.client.Do(ctx, c.client.B().Set().Key(key).Value("processing").Nx().ExSeconds(3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		return nil, errInProgress
	}
	if err != nil {
		return nil, err
	}
	rc := &receipt{ID: "o_9"}
	c.client.Do(ctx, c.client.B().Set().Key(key).Value("done").ExSeconds(3600).Build()) // want `SET of key to "done" marks the key claimed by SET NX at rueidis.go:15 completed without the response`
	return rc, nil
}

// Negative: the confirmation is stored, and a retry that finds the key
// taken (a nil reply) answers from it.
func (c *checkout) placeStored(ctx context.Context, requestID string) (*receipt, error) {
	key := "checkout:req:" + requestID
	err := c.client.Do(ctx, c.client.B().Set().Key(key).Value("processing").Nx().ExSeconds(3600).Build()).Error()
	if rueidis.IsRedisNil(err) {
		stored, err := c.client.Do(ctx, c.client.B().Get().Key(key).Build()).ToString()
		if err != nil {
			return nil, err
		}
		var rc receipt
		json.Unmarshal([]byte(stored), &rc)
		return &rc, nil
	}
	if err != nil {
		return nil, err
	}
	rc := &receipt{ID: "o_10"}
	body, _ := json.Marshal(rc)
	c.client.Do(ctx, c.client.B().Set().Key(key).Value(string(body)).ExSeconds(3600).Build())
	return rc, nil
}
