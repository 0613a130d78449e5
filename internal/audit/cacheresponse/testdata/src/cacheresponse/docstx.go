package cacheresponse

import (
	"errors"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The key is claimed by a conditional put; the transaction that writes
// the order completes it with a status and no response.
func (d *docAPI) order(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	_, err := d.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(d.keys),
		Item:                map[string]types.AttributeValue{"idempotency_key": ddbStr(key), "status": ddbStr("IN_PROGRESS")},
		ConditionExpression: aws.String("attribute_not_exists(idempotency_key)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	_, err = d.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{ // want `TransactWriteItems Update of keys sets only status: it marks the key claimed by PutItem into keys at docstx.go:17 completed without the response`
		{Put: &types.Put{
			TableName: aws.String("orders"),
			Item:      map[string]types.AttributeValue{"pk": ddbStr(key), "total": ddbStr("12.00")},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(d.keys),
			Key:                       map[string]types.AttributeValue{"idempotency_key": ddbStr(key)},
			UpdateExpression:          aws.String("SET #s = :done"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":done": ddbStr("DONE")},
		}},
	}})
	if err != nil {
		_, _ = d.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(d.keys), Key: map[string]types.AttributeValue{"idempotency_key": ddbStr(key)}})
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"id":"o_1"}`))
}

// The same transaction stores the answer with the status.
func (d *docAPI) orderReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ctx := r.Context()
	_, err := d.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(d.keys),
		Item:                map[string]types.AttributeValue{"idempotency_key": ddbStr(key), "status": ddbStr("IN_PROGRESS")},
		ConditionExpression: aws.String("attribute_not_exists(idempotency_key)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	if err != nil {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	body := []byte(`{"id":"o_1"}`)
	_, err = d.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: aws.String("orders"),
			Item:      map[string]types.AttributeValue{"pk": ddbStr(key), "total": ddbStr("12.00")},
		}},
		{Update: &types.Update{
			TableName:                 aws.String(d.keys),
			Key:                       map[string]types.AttributeValue{"idempotency_key": ddbStr(key)},
			UpdateExpression:          aws.String("SET #s = :done, response_body = :b"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":done": ddbStr("DONE"), ":b": ddbStr(string(body))},
		}},
	}})
	if err != nil {
		_, _ = d.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(d.keys), Key: map[string]types.AttributeValue{"idempotency_key": ddbStr(key)}})
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}
