package payhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stripe/stripe-go/v82"
)

func strAttr(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func numAttr(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

type refundEvent struct {
	ID             string            `json:"id"`
	AmountRefunded int64             `json:"amount_refunded"`
	Metadata       map[string]string `json:"metadata"`
}

// HandleChargeRefunded records a charge.refunded event against its order.
//
// corpus: bug checkthenact
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (GetItem of an idempotency record by key, PutItem of a record)
func (rc *Receiver) HandleChargeRefunded(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	got, err := rc.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(rc.dedup),
		Key:            map[string]types.AttributeValue{"pk": strAttr("stripe#" + ev.ID)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		http.Error(w, "lookup failed", http.StatusInternalServerError)
		return
	}
	if len(got.Item) > 0 {
		w.WriteHeader(http.StatusOK)
		return
	}
	var ch refundEvent
	if err := json.Unmarshal(ev.Data.Raw, &ch); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	if err := rc.orders.Refunded(ctx, ch.Metadata["order_id"], ch.AmountRefunded); err != nil {
		http.Error(w, "apply failed", http.StatusInternalServerError)
		return
	}
	_, err = rc.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(rc.dedup),
		Item: map[string]types.AttributeValue{
			"pk":         strAttr("stripe#" + ev.ID),
			"type":       strAttr(string(ev.Type)),
			"expires_at": numAttr(time.Now().Add(30 * 24 * time.Hour).Unix()),
		},
	})
	if err != nil {
		rc.log.WarnContext(ctx, "record delivery", "event", ev.ID, "err", err)
	}
	w.WriteHeader(http.StatusOK)
}

// HandleChargeRefundedConditional records a charge.refunded event against
// its order. The delivery is claimed with a conditional put; a failed
// apply deletes the claim so Stripe's retry is applied.
//
// corpus: ok checkthenact
// modelled on: imrishuroy/go-idempotent-orderflow internal/idempotency/store.go (CreateIfNotExists: PutItem with attribute_not_exists, ConditionalCheckFailedException means it exists)
func (rc *Receiver) HandleChargeRefundedConditional(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var ch refundEvent
	if err := json.Unmarshal(ev.Data.Raw, &ch); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	key := map[string]types.AttributeValue{"pk": strAttr("stripe#" + ev.ID)}
	_, err = rc.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(rc.dedup),
		Item: map[string]types.AttributeValue{
			"pk":         key["pk"],
			"type":       strAttr(string(ev.Type)),
			"expires_at": numAttr(time.Now().Add(30 * 24 * time.Hour).Unix()),
		},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		w.WriteHeader(http.StatusOK) // delivered before
		return
	}
	if err != nil {
		http.Error(w, "claim failed", http.StatusInternalServerError)
		return
	}
	if err := rc.orders.Refunded(ctx, ch.Metadata["order_id"], ch.AmountRefunded); err != nil {
		_, _ = rc.ddb.DeleteItem(context.WithoutCancel(ctx), &dynamodb.DeleteItemInput{
			TableName: aws.String(rc.dedup), Key: key,
		})
		http.Error(w, "apply failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

type sellerPayout struct {
	SellerAccount string `json:"seller_account"`
	OrderID       string `json:"order_id"`
	Cents         int64  `json:"cents"`
}

func (rc *Receiver) claimDelivery(ctx context.Context, id string) (bool, error) {
	_, err := rc.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(rc.dedup),
		Item: map[string]types.AttributeValue{
			"pk":     strAttr("payout#" + id),
			"status": strAttr("processing"),
		},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

func (rc *Receiver) finishDelivery(ctx context.Context, id string) error {
	_, err := rc.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(rc.dedup),
		Key:                       map[string]types.AttributeValue{"pk": strAttr("payout#" + id)},
		UpdateExpression:          aws.String("SET #s = :done"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": strAttr("done")},
	})
	return err
}

func (rc *Receiver) dropDelivery(ctx context.Context, id string) {
	_, _ = rc.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(rc.dedup),
		Key:       map[string]types.AttributeValue{"pk": strAttr("payout#" + id)},
	})
}

// PayOutSeller handles an order.delivered event from the marketplace by
// moving the seller's share to their connected account.
//
// corpus: bug releaseonerror
// modelled on: imrishuroy/go-idempotent-orderflow cmd/worker/processor.go (record created IN_PROGRESS, work done, MarkDone at the end)
func (rc *Receiver) PayOutSeller(ctx context.Context, eventID string, body []byte) error {
	var p sellerPayout
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decode %s: %w", eventID, err)
	}
	fresh, err := rc.claimDelivery(ctx, eventID)
	if err != nil || !fresh {
		return err
	}
	params := &stripe.TransferCreateParams{
		Amount:        stripe.Int64(p.Cents),
		Currency:      stripe.String(string(stripe.CurrencyEUR)),
		Destination:   stripe.String(p.SellerAccount),
		TransferGroup: stripe.String(p.OrderID),
	}
	params.IdempotencyKey = stripe.String("payout-" + eventID)
	if _, err := rc.sc.V1Transfers.Create(ctx, params); err != nil {
		return fmt.Errorf("transfer for %s: %w", p.OrderID, err)
	}
	return rc.finishDelivery(ctx, eventID)
}

// PayOutSellerReleasing handles an order.delivered event from the
// marketplace by moving the seller's share to their connected account; a
// failed transfer gives the claim back.
//
// corpus: ok releaseonerror
// modelled on: imrishuroy/go-idempotent-orderflow cmd/worker/processor.go (record created IN_PROGRESS, work done, MarkDone at the end)
func (rc *Receiver) PayOutSellerReleasing(ctx context.Context, eventID string, body []byte) (err error) {
	var p sellerPayout
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decode %s: %w", eventID, err)
	}
	fresh, err := rc.claimDelivery(ctx, eventID)
	if err != nil || !fresh {
		return err
	}
	defer func() {
		if err != nil {
			rc.dropDelivery(context.WithoutCancel(ctx), eventID)
		}
	}()
	params := &stripe.TransferCreateParams{
		Amount:        stripe.Int64(p.Cents),
		Currency:      stripe.String(string(stripe.CurrencyEUR)),
		Destination:   stripe.String(p.SellerAccount),
		TransferGroup: stripe.String(p.OrderID),
	}
	params.IdempotencyKey = stripe.String("payout-" + eventID)
	if _, err = rc.sc.V1Transfers.Create(ctx, params); err != nil {
		return fmt.Errorf("transfer for %s: %w", p.OrderID, err)
	}
	return rc.finishDelivery(ctx, eventID)
}
