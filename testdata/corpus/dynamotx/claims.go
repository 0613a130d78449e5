package dynamotx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// claimItem is the Put that claims an idempotency key in progress, for a
// transaction.
func (o *Orders) claimItem(key string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String(o.keys),
		Item: map[string]types.AttributeValue{
			"pk": s(key), "status": s("IN_PROGRESS"), "expires_at": n(time.Now().Add(24 * time.Hour).Unix()),
		},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}
}

func (o *Orders) holdItem(sku string, qty int) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String(o.stock),
		Key:                       map[string]types.AttributeValue{"sku": s(sku)},
		UpdateExpression:          aws.String("ADD held :q"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":q": n(int64(qty))},
	}}
}

// Checkout claims the key and holds the stock in one transaction, then
// charges; a failed charge returns with the key in progress, so every
// retry is told to wait until the record expires.
//
// corpus: bug releaseonerror
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (an order put conditioned on attribute_not_exists beside a stock update)
func (o *Orders) Checkout(ctx context.Context, key string, p placeOrder) error {
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{
				TableName:           aws.String(o.keys),
				Item:                map[string]types.AttributeValue{"pk": s(key), "status": s("IN_PROGRESS")},
				ConditionExpression: aws.String("attribute_not_exists(pk)"),
			}},
			{Update: &types.Update{
				TableName:                 aws.String(o.stock),
				Key:                       map[string]types.AttributeValue{"sku": s(p.SKU)},
				UpdateExpression:          aws.String("ADD held :q"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":q": n(int64(p.Qty))},
			}},
		},
	})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return fmt.Errorf("claim %s: %w", key, err)
	}
	if _, err := o.payments.Charge(ctx, p.OrderID, p.Cents); err != nil {
		return fmt.Errorf("charge %s: %w", p.OrderID, err)
	}
	_, err = o.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(o.keys),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :done, response_body = :b"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE"), ":b": s(p.OrderID)},
	})
	return err
}

// CheckoutReleasing gives the key and the stock back in one transaction
// when the charge fails: its Delete removes the key's record.
//
// corpus: ok releaseonerror
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (an order put conditioned on attribute_not_exists beside a stock update)
func (o *Orders) CheckoutReleasing(ctx context.Context, key string, p placeOrder) error {
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{
				TableName:           aws.String(o.keys),
				Item:                map[string]types.AttributeValue{"pk": s(key), "status": s("IN_PROGRESS")},
				ConditionExpression: aws.String("attribute_not_exists(pk)"),
			}},
			o.holdItem(p.SKU, p.Qty),
		},
	})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return fmt.Errorf("claim %s: %w", key, err)
	}
	if _, err := o.payments.Charge(ctx, p.OrderID, p.Cents); err != nil {
		_, _ = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}}},
			o.holdItem(p.SKU, -p.Qty),
		}})
		return fmt.Errorf("charge %s: %w", p.OrderID, err)
	}
	_, err = o.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(o.keys),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :done, response_body = :b"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE"), ":b": s(p.OrderID)},
	})
	return err
}

// Fulfil claims a shipment's key with the reservation, the items built up
// in a slice; a failed label request returns with the key held.
//
// corpus: bug releaseonerror
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (transact_write_items of a conditional counter update)
func (o *Orders) Fulfil(ctx context.Context, shipmentID, sku string, label func(context.Context, string) error) error {
	var items []types.TransactWriteItem
	items = append(items, types.TransactWriteItem{Put: &types.Put{
		TableName:           aws.String("shipment_keys"),
		Item:                map[string]types.AttributeValue{"pk": s(shipmentID), "state": s("PROCESSING")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}})
	items = append(items, o.holdItem(sku, 1))
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return err
	}
	if err := label(ctx, shipmentID); err != nil {
		return fmt.Errorf("label %s: %w", shipmentID, err)
	}
	_, err = o.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("shipment_keys"),
		Key:                       map[string]types.AttributeValue{"pk": s(shipmentID)},
		UpdateExpression:          aws.String("SET #s = :done"),
		ExpressionAttributeNames:  map[string]string{"#s": "state"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE")},
	})
	return err
}

// FulfilDeferred defers a DeleteItem of the key, cancelled once the
// shipment is labelled.
//
// corpus: ok releaseonerror
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (transact_write_items of a conditional counter update)
func (o *Orders) FulfilDeferred(ctx context.Context, shipmentID, sku string, label func(context.Context, string) error) (err error) {
	var items []types.TransactWriteItem
	items = append(items, types.TransactWriteItem{Put: &types.Put{
		TableName:           aws.String("shipment_keys"),
		Item:                map[string]types.AttributeValue{"pk": s(shipmentID), "state": s("PROCESSING")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}})
	items = append(items, o.holdItem(sku, 1))
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = o.ddb.DeleteItem(context.WithoutCancel(ctx), &dynamodb.DeleteItemInput{
				TableName: aws.String("shipment_keys"),
				Key:       map[string]types.AttributeValue{"pk": s(shipmentID)},
			})
		}
	}()
	if err = label(ctx, shipmentID); err != nil {
		return fmt.Errorf("label %s: %w", shipmentID, err)
	}
	_, err = o.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("shipment_keys"),
		Key:                       map[string]types.AttributeValue{"pk": s(shipmentID)},
		UpdateExpression:          aws.String("SET #s = :done"),
		ExpressionAttributeNames:  map[string]string{"#s": "state"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE")},
	})
	return err
}

// Refund claims the refund's key in a transaction beside the ledger
// debit; the gateway's refusal is returned with the key still claimed.
//
// corpus: bug releaseonerror
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a put conditioned on attribute_not_exists in a transaction)
func (o *Orders) Refund(ctx context.Context, refundID, account string, cents int64, send func(context.Context, string, int64) error) error {
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		o.claimItem("refund#" + refundID),
		{Update: &types.Update{
			TableName:                 aws.String("accounts"),
			Key:                       map[string]types.AttributeValue{"pk": s(account)},
			UpdateExpression:          aws.String("ADD balance :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(-cents)},
		}},
	}})
	if err != nil {
		return err
	}
	if err := send(ctx, refundID, cents); err != nil {
		return err
	}
	return o.finishKey(ctx, "refund#"+refundID, refundID)
}

// RefundOnce writes the refund's key as done with the ledger debit: the
// transaction is the whole work, and nothing stays claimed if it fails.
//
// corpus: ok releaseonerror
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a put conditioned on attribute_not_exists in a transaction)
func (o *Orders) RefundOnce(ctx context.Context, refundID, account string, cents int64, audit func(context.Context, string) error) error {
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:           aws.String(o.keys),
			Item:                map[string]types.AttributeValue{"pk": s("refund#" + refundID), "status": s("DONE")},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}},
		{Update: &types.Update{
			TableName:                 aws.String("accounts"),
			Key:                       map[string]types.AttributeValue{"pk": s(account)},
			UpdateExpression:          aws.String("ADD balance :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(-cents)},
		}},
	}})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return err
	}
	if err := audit(ctx, refundID); err != nil {
		return fmt.Errorf("audit %s: %w", refundID, err)
	}
	return nil
}

func (o *Orders) finishKey(ctx context.Context, key, result string) error {
	_, err := o.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(o.keys),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :done, response_body = :r"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE"), ":r": s(result)},
	})
	return err
}

// PlaceOrder claims the request's key with a conditional put, then
// writes the order and completes the key in one transaction whose Update
// stores the status alone: a retry finds DONE and has no order to show.
//
// corpus: bug cacheresponse
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a transaction of an update and an order put)
func (o *Orders) PlaceOrder(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	p, err := decodeOrder(r)
	if err != nil {
		http.Error(w, "bad order", http.StatusBadRequest)
		return
	}
	_, err = o.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(o.keys),
		Item:                map[string]types.AttributeValue{"pk": s(key), "status": s("IN_PROGRESS")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String(o.orders),
			Item:      map[string]types.AttributeValue{"order_id": s(p.OrderID), "sku": s(p.SKU), "qty": n(int64(p.Qty))},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(o.keys),
			Key:                       map[string]types.AttributeValue{"pk": s(key)},
			UpdateExpression:          aws.String("SET #s = :done, updated_at = :now"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE"), ":now": s(time.Now().UTC().Format(time.RFC3339))},
		}},
	}})
	if err != nil {
		_, _ = o.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}})
		http.Error(w, "order failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"order_id": p.OrderID})
}

// PlaceOrderReplaying completes the key in the same transaction with the
// response it answers.
//
// corpus: ok cacheresponse
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a transaction of an update and an order put)
func (o *Orders) PlaceOrderReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	p, err := decodeOrder(r)
	if err != nil {
		http.Error(w, "bad order", http.StatusBadRequest)
		return
	}
	_, err = o.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(o.keys),
		Item:                map[string]types.AttributeValue{"pk": s(key), "status": s("IN_PROGRESS")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	body, _ := json.Marshal(map[string]string{"order_id": p.OrderID})
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String(o.orders),
			Item:      map[string]types.AttributeValue{"order_id": s(p.OrderID), "sku": s(p.SKU), "qty": n(int64(p.Qty))},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(o.keys),
			Key:                       map[string]types.AttributeValue{"pk": s(key)},
			UpdateExpression:          aws.String("SET #s = :done, response_status = :code, response_body = :body"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("DONE"), ":code": n(201), ":body": s(string(body))},
		}},
	}})
	if err != nil {
		_, _ = o.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}})
		http.Error(w, "order failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// Pay claims the key in a transaction with the stock hold, charges, and
// completes the key in a second transaction, built in a slice, whose
// Update sets the status alone.
//
// corpus: bug cacheresponse
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (transact_write_items with the caller's request token)
func (o *Orders) Pay(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	p, err := decodeOrder(r)
	if err != nil {
		http.Error(w, "bad order", http.StatusBadRequest)
		return
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{o.claimItem(key), o.holdItem(p.SKU, p.Qty)},
	})
	if _, dup := cancelledByCondition(err); dup {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	chargeID, err := o.payments.Charge(ctx, p.OrderID, p.Cents)
	if err != nil {
		_, _ = o.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}})
		http.Error(w, "payment failed", http.StatusPaymentRequired)
		return
	}
	done := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 aws.String(o.keys),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :paid"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":paid": s("COMPLETED")},
	}}}
	done = append(done, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String("charges"),
		Item:      map[string]types.AttributeValue{"charge_id": s(chargeID), "order_id": s(p.OrderID)},
	}})
	_, _ = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: done})
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"charge_id": chargeID})
}

// PayReplaying stores the charge it answers with the status.
//
// corpus: ok cacheresponse
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (transact_write_items with the caller's request token)
func (o *Orders) PayReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	p, err := decodeOrder(r)
	if err != nil {
		http.Error(w, "bad order", http.StatusBadRequest)
		return
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{o.claimItem(key), o.holdItem(p.SKU, p.Qty)},
	})
	if _, dup := cancelledByCondition(err); dup {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	chargeID, err := o.payments.Charge(ctx, p.OrderID, p.Cents)
	if err != nil {
		_, _ = o.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}})
		http.Error(w, "payment failed", http.StatusPaymentRequired)
		return
	}
	body, _ := json.Marshal(map[string]string{"charge_id": chargeID})
	done := []types.TransactWriteItem{{Update: &types.Update{
		TableName:                 aws.String(o.keys),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :paid, response_body = :b"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":paid": s("COMPLETED"), ":b": s(string(body))},
	}}}
	done = append(done, types.TransactWriteItem{Put: &types.Put{
		TableName: aws.String("charges"),
		Item:      map[string]types.AttributeValue{"charge_id": s(chargeID), "order_id": s(p.OrderID)},
	}})
	_, _ = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: done})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
