package cacheresponse

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

type docAPI struct {
	requests *mongo.Collection
	ddb      *dynamodb.Client
	keys     string // DynamoDB table of idempotency keys
}

type requestDoc struct {
	ID    string `bson:"_id"`
	State string `bson:"state"`
	Reply []byte `bson:"reply,omitempty"`
}

func (d *docAPI) claimRequest(ctx context.Context, key string) (bool, error) {
	_, err := d.requests.InsertOne(ctx, requestDoc{ID: key, State: "processing"})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// The claimed document's state is set to completed and nothing else: a
// repeat finds it done with no reply to give.
func (d *docAPI) open(ctx context.Context, key string) (*receipt, error) {
	fresh, err := d.claimRequest(ctx, key)
	if err != nil {
		return nil, err
	}
	if !fresh {
		return nil, errInProgress
	}
	rc := &receipt{ID: "a_1"}
	_, err = d.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, // want `UpdateOne of requests sets only state, completed_at: it marks the key claimed by claimRequest at docs.go:40 completed without the response`
		bson.D{{Key: "$set", Value: bson.D{{Key: "state", Value: "completed"}, {Key: "completed_at", Value: time.Now()}}}})
	return rc, err
}

// The same with the reply stored beside the state.
func (d *docAPI) openReplaying(ctx context.Context, key string) (*receipt, error) {
	fresh, err := d.claimRequest(ctx, key)
	if err != nil {
		return nil, err
	}
	if !fresh {
		return nil, errInProgress
	}
	rc := &receipt{ID: "a_1"}
	body, _ := json.Marshal(rc)
	_, err = d.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "completed", "reply": body}})
	return rc, err
}

func ddbStr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// A conditional put claims the key; the update that completes it sets
// the status alone.
func (d *docAPI) serve(w http.ResponseWriter, r *http.Request) {
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
	_, _ = d.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // want `UpdateItem of keys sets only status: it marks the key claimed by PutItem into keys at docs.go:75 completed without the response`
		TableName:                 aws.String(d.keys),
		Key:                       map[string]types.AttributeValue{"idempotency_key": ddbStr(key)},
		UpdateExpression:          aws.String("SET #s = :done, updated_at = :now"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": ddbStr("DONE"), ":now": ddbStr(time.Now().String())},
	})
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write([]byte(`{"id":"a_1"}`))
}

// The same with the status code and body in the update.
func (d *docAPI) serveReplaying(w http.ResponseWriter, r *http.Request) {
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
	body := []byte(`{"id":"a_1"}`)
	_, _ = d.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(d.keys),
		Key:                       map[string]types.AttributeValue{"idempotency_key": ddbStr(key)},
		UpdateExpression:          aws.String("SET #s = :done, response_body = :b, response_status = :c"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": ddbStr("DONE"), ":b": ddbStr(string(body)), ":c": ddbStr("201")},
	})
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
}

// A lease renewed while the work runs sets the state to what it was: no
// completion.
func (d *docAPI) openRenewing(ctx context.Context, key string) (*receipt, error) {
	fresh, err := d.claimRequest(ctx, key)
	if err != nil || !fresh {
		return nil, err
	}
	_, _ = d.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "processing", "lease_until": time.Now().Add(time.Minute)}})
	rc := &receipt{ID: "a_1"}
	body, _ := json.Marshal(rc)
	_, err = d.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "completed", "reply": body}})
	return rc, err
}

func (d *docAPI) markCompleted(ctx context.Context, key string) error {
	_, err := d.requests.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "completed"}})
	return err
}

// The status-only update made through a helper.
func (d *docAPI) openViaHelper(ctx context.Context, key string) (*receipt, error) {
	fresh, err := d.claimRequest(ctx, key)
	if err != nil || !fresh {
		return nil, err
	}
	rc := &receipt{ID: "a_1"}
	return rc, d.markCompleted(ctx, key) // want `markCompleted stores a status and no response: it marks the key claimed by claimRequest at docs.go:151 completed`
}
