// Package dynamotx holds scenarios on writes of many records at once
// (DynamoDB transactions and batches, MongoDB bulk writes and InsertMany):
// an order service that reserves stock, records ledger entries and keeps
// its idempotency records in DynamoDB, writing several items at once.
package dynamotx

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
)

// Orders is the order service.
type Orders struct {
	ddb      *dynamodb.Client
	keys     string // the idempotency table
	stock    string
	orders   string
	payments PaymentGateway
}

// PaymentGateway charges a card.
type PaymentGateway interface {
	Charge(ctx context.Context, orderID string, cents int64) (string, error)
}

type placeOrder struct {
	OrderID string `json:"order_id"`
	SKU     string `json:"sku"`
	Qty     int    `json:"qty"`
	Cents   int64  `json:"cents"`
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func n(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// cancelledByCondition reports whether a transaction was cancelled
// because one of its conditions failed, and which item's.
func cancelledByCondition(err error) (int, bool) {
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		return -1, false
	}
	for i, r := range tce.CancellationReasons {
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			return i, true
		}
	}
	return -1, false
}

func decodeOrder(r *http.Request) (placeOrder, error) {
	var p placeOrder
	err := json.NewDecoder(r.Body).Decode(&p)
	return p, err
}

// ReserveChecked looks the order up, then reserves stock and writes the
// order in one transaction whose Put has no condition: two retries both
// find no order, and both take the stock.
//
// corpus: bug checkthenact
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a transaction of a stock update and an order put)
func (o *Orders) ReserveChecked(ctx context.Context, p placeOrder) error {
	got, err := o.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(o.orders),
		Key:            map[string]types.AttributeValue{"order_id": s(p.OrderID)},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fmt.Errorf("get order %s: %w", p.OrderID, err)
	}
	if got.Item != nil {
		return nil
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{
				TableName:                 aws.String(o.stock),
				Key:                       map[string]types.AttributeValue{"sku": s(p.SKU)},
				UpdateExpression:          aws.String("ADD available :minus"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":minus": n(int64(-p.Qty))},
			}},
			{Put: &types.Put{
				TableName: aws.String(o.orders),
				Item: map[string]types.AttributeValue{
					"order_id": s(p.OrderID), "sku": s(p.SKU), "qty": n(int64(p.Qty)), "status": s("CONFIRMED"),
				},
			}},
		},
	})
	return err
}

// ReserveOnce is the same transaction with the order's Put conditioned on
// attribute_not_exists: the look-up is a fast path, and a retry that
// passes it too finds the transaction cancelled.
//
// corpus: ok checkthenact
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (the order put conditioned on attribute_not_exists(OrderId))
func (o *Orders) ReserveOnce(ctx context.Context, p placeOrder) error {
	got, err := o.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(o.orders),
		Key:       map[string]types.AttributeValue{"order_id": s(p.OrderID)},
	})
	if err != nil {
		return fmt.Errorf("get order %s: %w", p.OrderID, err)
	}
	if got.Item != nil {
		return nil
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{
			{Update: &types.Update{
				TableName:                 aws.String(o.stock),
				Key:                       map[string]types.AttributeValue{"sku": s(p.SKU)},
				UpdateExpression:          aws.String("ADD available :minus"),
				ConditionExpression:       aws.String("available >= :qty"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":minus": n(int64(-p.Qty)), ":qty": n(int64(p.Qty))},
			}},
			{Put: &types.Put{
				TableName: aws.String(o.orders),
				Item: map[string]types.AttributeValue{
					"order_id": s(p.OrderID), "sku": s(p.SKU), "qty": n(int64(p.Qty)), "status": s("CONFIRMED"),
				},
				ConditionExpression: aws.String("attribute_not_exists(order_id)"),
			}},
		},
	})
	if i, ok := cancelledByCondition(err); ok && i == 1 {
		return nil // placed by an earlier attempt
	}
	return err
}

// PostEntry checks the idempotency table for the entry's key, then
// records the key and the ledger entry together with no condition on the
// key: two retries both see no key and both post.
//
// corpus: bug checkthenact
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (a counter moved in a transaction, retried by the caller)
func (o *Orders) PostEntry(ctx context.Context, key, account string, cents int64) error {
	got, err := o.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("idempotency_keys"),
		Key:       map[string]types.AttributeValue{"pk": s(key)},
	})
	if err != nil {
		return err
	}
	if len(got.Item) > 0 {
		return nil
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String("idempotency_keys"),
		Item:      map[string]types.AttributeValue{"pk": s(key), "account": s(account), "at": s(time.Now().UTC().Format(time.RFC3339))},
	}}}
	items = append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String("accounts"),
		Key:                       map[string]types.AttributeValue{"pk": s(account)},
		UpdateExpression:          aws.String("ADD balance :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(cents)},
	}})
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// PostEntryOnce puts the key with attribute_not_exists in the same
// transaction as the entry: the key is claimed and the entry posted in
// one step, and a duplicate cancels both.
//
// corpus: ok checkthenact
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (a counter moved in a transaction, made safe by an item of its own)
func (o *Orders) PostEntryOnce(ctx context.Context, key, account string, cents int64) error {
	got, err := o.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("idempotency_keys"),
		Key:       map[string]types.AttributeValue{"pk": s(key)},
	})
	if err != nil {
		return err
	}
	if len(got.Item) > 0 {
		return nil
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName:           aws.String("idempotency_keys"),
		Item:                map[string]types.AttributeValue{"pk": s(key), "account": s(account)},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}}
	items = append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:                 aws.String("accounts"),
		Key:                       map[string]types.AttributeValue{"pk": s(account)},
		UpdateExpression:          aws.String("ADD balance :c"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(cents)},
	}})
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	return err
}

// Settle reads the payment, and moves it from pending to settled in a
// transaction whose Update compares the status it read.
//
// corpus: ok checkthenact
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (ProductStatus = :expected_status)
func (o *Orders) Settle(ctx context.Context, paymentID, account string, cents int64) error {
	got, err := o.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("payments"),
		Key:       map[string]types.AttributeValue{"payment_id": s(paymentID)},
	})
	if err != nil {
		return err
	}
	if got.Item == nil {
		return fmt.Errorf("payment %s not found", paymentID)
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 aws.String("payments"),
			Key:                       map[string]types.AttributeValue{"payment_id": s(paymentID)},
			UpdateExpression:          aws.String("SET #s = :settled"),
			ConditionExpression:       aws.String("#s = :pending"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":settled": s("SETTLED"), ":pending": s("PENDING")},
		}},
		{Update: &types.Update{
			TableName:                 aws.String("accounts"),
			Key:                       map[string]types.AttributeValue{"pk": s(account)},
			UpdateExpression:          aws.String("ADD balance :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(cents)},
		}},
	}})
	if _, lost := cancelledByCondition(err); lost {
		return nil
	}
	return err
}

// Notifier delivers webhooks.
type Notifier struct {
	ddb  *dynamodb.Client
	hc   *http.Client
	hook string
}

func (nf *Notifier) post(ctx context.Context, id string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, nf.hook, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Delivery", id)
	resp, err := nf.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("hook answered %d", resp.StatusCode)
	}
	return nil
}

// Deliver checks the delivery's marker, posts the webhook, then writes
// the marker and an audit row in one batch: batch puts are never
// conditional, so two deliveries both post.
//
// corpus: bug checkthenact
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/golang/WorkingWithItems/batchWriteItem.go (a BatchWriteItem of put requests)
func (nf *Notifier) Deliver(ctx context.Context, id string, body []byte) error {
	got, err := nf.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("delivered_webhooks"),
		Key:       map[string]types.AttributeValue{"delivery_id": s(id)},
	})
	if err != nil {
		return err
	}
	if got.Item != nil {
		return nil
	}
	if err := nf.post(ctx, id, body); err != nil {
		return err
	}
	_, err = nf.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{
			"delivered_webhooks": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"delivery_id": s(id)}}}},
			"audit":              {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": s("delivery#" + id), "at": s(time.Now().String())}}}},
		},
	})
	return err
}

// Archive reads an order and copies it to the archive in a batch: no
// read of the archive decides the write.
//
// corpus: ok checkthenact
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/golang/WorkingWithItems/batchWriteItem.go (put and delete requests in one batch)
func (nf *Notifier) Archive(ctx context.Context, orderID string) error {
	got, err := nf.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("orders"),
		Key:       map[string]types.AttributeValue{"order_id": s(orderID)},
	})
	if err != nil {
		return err
	}
	if got.Item == nil {
		return nil
	}
	_, err = nf.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{
			"orders_archive": {{PutRequest: &types.PutRequest{Item: got.Item}}},
			"orders":         {{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{"order_id": s(orderID)}}}},
		},
	})
	return err
}
