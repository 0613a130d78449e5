package dynamotx

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/uuid"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Bookings answers booking requests, keeping its idempotency documents
// in MongoDB.
type Bookings struct {
	requests *mongo.Collection
	slots    *mongo.Collection
}

type booking struct {
	Slot string `json:"slot"`
	User string `json:"user"`
}

// claimModels are the bulk write's models that claim a request's key
// for a booking.
func claimModels(key string, b booking) []mongo.WriteModel {
	return []mongo.WriteModel{
		mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": key}).
			SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "processing", "slot": b.Slot, "created": time.Now()}}).
			SetUpsert(true),
	}
}

// Book claims the request's key with a bulk upsert, books the slot, and
// completes the key with an update model that sets its state alone: a
// retry finds it done and has no booking to answer with.
//
// corpus: bug cacheresponse
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (bk *Bookings) Book(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	var b booking
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		http.Error(w, "bad booking", http.StatusBadRequest)
		return
	}
	res, err := bk.requests.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": key}).
			SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "processing", "created": time.Now()}}).
			SetUpsert(true),
	})
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if res.UpsertedCount == 0 {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if _, err := bk.slots.UpdateOne(ctx, bson.M{"_id": b.Slot, "holder": nil}, bson.M{"$set": bson.M{"holder": b.User}}); err != nil {
		_, _ = bk.requests.DeleteOne(ctx, bson.M{"_id": key})
		http.Error(w, "booking failed", http.StatusInternalServerError)
		return
	}
	_, _ = bk.requests.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": key}).SetUpdate(bson.M{"$set": bson.M{"state": "done", "finished": time.Now()}}),
	})
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]string{"slot": b.Slot, "user": b.User})
}

// BookReplaying stores the answer in the completing model.
//
// corpus: ok cacheresponse
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (bk *Bookings) BookReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	var b booking
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		http.Error(w, "bad booking", http.StatusBadRequest)
		return
	}
	res, err := bk.requests.BulkWrite(ctx, claimModels(key, b))
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	if res.UpsertedCount == 0 {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if _, err := bk.slots.UpdateOne(ctx, bson.M{"_id": b.Slot, "holder": nil}, bson.M{"$set": bson.M{"holder": b.User}}); err != nil {
		_, _ = bk.requests.DeleteOne(ctx, bson.M{"_id": key})
		http.Error(w, "booking failed", http.StatusInternalServerError)
		return
	}
	body, _ := json.Marshal(map[string]string{"slot": b.Slot, "user": b.User})
	_, _ = bk.requests.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": key}).SetUpdate(bson.M{"$set": bson.M{"state": "done", "status_code": 201, "response_body": body}}),
	})
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// Ship claims the shipment's key with the stock hold in one transaction,
// and completes it with a transaction that removes the cart and sets the
// key's status alone.
//
// corpus: bug cacheresponse
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a transaction of an update and a put)
func (o *Orders) Ship(w http.ResponseWriter, r *http.Request) {
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
	if i, dup := cancelledByCondition(err); dup && i == 0 {
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	tracking := "trk_" + p.OrderID
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String("carts"), Key: map[string]types.AttributeValue{"pk": s(p.OrderID)}}},
		{Update: &types.Update{
			TableName:                 aws.String(o.keys),
			Key:                       map[string]types.AttributeValue{"pk": s(key)},
			UpdateExpression:          aws.String("SET #s = :shipped"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":shipped": s("COMPLETED")},
		}},
	}})
	if err != nil {
		http.Error(w, "ship failed", http.StatusInternalServerError)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"tracking": tracking})
}

// ShipQueued is the queue consumer's version: it only succeeds or fails,
// so the status is all a redelivery needs.
//
// corpus: ok cacheresponse
// modelled on: aws-samples/aws-dynamodb-examples DynamoDB-SDK-Examples/node.js/WorkingWithItems/transact-write.js (a transaction of an update and a put)
func (o *Orders) ShipQueued(ctx context.Context, key string, p placeOrder) error {
	_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
		TransactItems: []types.TransactWriteItem{o.claimItem(key), o.holdItem(p.SKU, p.Qty)},
	})
	if _, dup := cancelledByCondition(err); dup {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String("carts"), Key: map[string]types.AttributeValue{"pk": s(p.OrderID)}}},
		{Update: &types.Update{
			TableName:                 aws.String(o.keys),
			Key:                       map[string]types.AttributeValue{"pk": s(key)},
			UpdateExpression:          aws.String("SET #s = :shipped"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":shipped": s("COMPLETED")},
		}},
	}})
	if err != nil {
		_, _ = o.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(o.keys), Key: map[string]types.AttributeValue{"pk": s(key)}})
	}
	return err
}

// transferItems moves cents between two accounts.
func transferItems(from, to string, cents int64) []types.TransactWriteItem {
	return []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 aws.String("accounts"),
			Key:                       map[string]types.AttributeValue{"pk": s(from)},
			UpdateExpression:          aws.String("ADD balance :c"),
			ConditionExpression:       aws.String("balance >= :need"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(-cents), ":need": n(cents)},
		}},
		{Update: &types.Update{
			TableName:                 aws.String("accounts"),
			Key:                       map[string]types.AttributeValue{"pk": s(to)},
			UpdateExpression:          aws.String("ADD balance :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": n(cents)},
		}},
	}
}

// Transfer retries a throttled transfer with a new request token each
// time: DynamoDB cannot tell the retry from a second transfer, and one
// that committed before its answer was lost moves the money twice.
//
// corpus: bug attemptkey
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (ClientRequestToken on transact_write_items)
func (o *Orders) Transfer(ctx context.Context, from, to string, cents int64) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(uuid.NewString()),
			TransactItems:      transferItems(from, to, cents),
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return fmt.Errorf("transfer after retries: %w", err)
}

// TransferOnce makes the token once, from the transfer's own ID, so a
// retry within ten minutes is answered as the first.
//
// corpus: ok attemptkey
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (ClientRequestToken on transact_write_items)
func (o *Orders) TransferOnce(ctx context.Context, transferID, from, to string, cents int64) error {
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		_, err = o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String("transfer-" + transferID),
			TransactItems:      transferItems(from, to, cents),
		})
		if err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 200 * time.Millisecond)
	}
	return fmt.Errorf("transfer %s after retries: %w", transferID, err)
}

// Payout hands the transaction to retry-go, stamping each try's token
// with the clock.
//
// corpus: bug attemptkey
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (ClientRequestToken on transact_write_items)
func (o *Orders) Payout(ctx context.Context, account string, cents int64) error {
	return retry.Do(func() error {
		_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String("payout-" + account + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)),
			TransactItems:      transferItems(account, "payouts", cents),
		})
		return err
	}, retry.Context(ctx), retry.Attempts(5))
}

// PayoutOnce makes the token before retry-go runs, from the payout's
// period, so every try sends the same one.
//
// corpus: ok attemptkey
// modelled on: aws-samples/dynamodb-debunking-myths resource_counters/4_transaction.py (ClientRequestToken on transact_write_items)
func (o *Orders) PayoutOnce(ctx context.Context, account, period string, cents int64) error {
	token := "payout-" + account + "-" + period
	return retry.Do(func() error {
		_, err := o.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{
			ClientRequestToken: aws.String(token),
			TransactItems:      transferItems(account, "payouts", cents),
		})
		return err
	}, retry.Context(ctx), retry.Attempts(5))
}
