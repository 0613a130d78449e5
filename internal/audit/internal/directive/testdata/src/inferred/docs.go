package inferred

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

type Docs struct {
	requests *mongo.Collection
	ddb      *dynamodb.Client
	table    string
	hc       *http.Client
}

type request struct {
	ID    string `bson:"_id"`
	State string `bson:"state"`
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func conditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// ClaimRequest inserts an in-progress document; a duplicate key means
// taken.
func (d *Docs) ClaimRequest(ctx context.Context, key string) (bool, error) { // want ClaimRequest:"inferred claim of parameter 1 in requests"
	_, err := d.requests.InsertOne(ctx, request{ID: key, State: "pending"})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// MarkSeen inserts a done marker: a duplicate key is the answer, and
// nothing is left to release.
func (d *Docs) MarkSeen(ctx context.Context, key string) (bool, error) {
	_, err := d.requests.InsertOne(ctx, bson.M{"_id": key, "at": time.Now()})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// CompleteRequest sets the state alone.
func (d *Docs) CompleteRequest(ctx context.Context, key string) error { // want CompleteRequest:"inferred complete of parameter 1 in requests, status only"
	_, err := d.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "done"}}}})
	return err
}

// StoreReply sets the state and the reply.
func (d *Docs) StoreReply(ctx context.Context, key string, reply []byte) error { // want StoreReply:"inferred complete of parameter 1 in requests$"
	_, err := d.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "done", "reply": reply}})
	return err
}

// DropRequest gives the key back.
func (d *Docs) DropRequest(ctx context.Context, key string) error { // want DropRequest:"inferred release of parameter 1 in requests"
	_, err := d.requests.DeleteOne(ctx, bson.M{"_id": key})
	return err
}

// Lease puts a running item only when absent, through a predicate of
// its error.
func (d *Docs) Lease(ctx context.Context, id string) (bool, error) { // want Lease:"inferred claim of parameter 1 in table"
	_, err := d.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(d.table),
		Item:                map[string]types.AttributeValue{"pk": str("job#" + id), "status": str("running")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		return false, nil
	}
	return err == nil, err
}

// LeaseAndSend claims and then does the work itself: no claim helper.
func (d *Docs) LeaseAndSend(ctx context.Context, id string) (bool, error) {
	_, err := d.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(d.table),
		Item:                map[string]types.AttributeValue{"pk": str("job#" + id), "status": str("running")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	if conditionFailed(err) {
		return false, nil
	}
	_, err = d.hc.Post("https://example.com/"+id, "text/plain", strings.NewReader(id))
	return err == nil, err
}

// FinishJob sets the status.
func (d *Docs) FinishJob(ctx context.Context, id string) error { // want FinishJob:"inferred complete of parameter 1 in table, status only"
	_, err := d.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(d.table),
		Key:                      map[string]types.AttributeValue{"pk": str("job#" + id)},
		UpdateExpression:         aws.String("SET #s = :done, updated_at = :now"),
		ExpressionAttributeNames: map[string]string{"#s": "status"},
	})
	return err
}

// Unlease gives the item back.
func (d *Docs) Unlease(ctx context.Context, id string) { // want Unlease:"inferred release of parameter 1 in table"
	_, _ = d.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(d.table),
		Key:       map[string]types.AttributeValue{"pk": str("job#" + id)},
	})
}
