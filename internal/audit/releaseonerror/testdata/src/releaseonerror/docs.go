package releaseonerror

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

type docJobs struct {
	locks *mongo.Collection
	runs  *mongo.Collection
	ddb   *dynamodb.Client
	table string
}

// A lock document inserted by its _id: a failed step returns with it in
// place, and no instance can close the period again.
func (j *docJobs) closePeriod(ctx context.Context, period string, step func(context.Context) error) error {
	lockID := "close:" + period
	_, err := j.locks.InsertOne(ctx, bson.D{{Key: "_id", Value: lockID}, {Key: "at", Value: time.Now()}})
	if mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("period %s is being closed", period)
	}
	if err != nil {
		return err
	}
	if err := step(ctx); err != nil {
		return err // want `this error return leaves the key claimed by InsertOne into locks at docs.go:27 held: every retry is refused as in progress until its TTL or lease runs out; defer a DeleteOne of the document right after the claim`
	}
	_, err = j.locks.DeleteOne(ctx, bson.D{{Key: "_id", Value: lockID}})
	return err
}

// The same, with the lock removed however the close ends.
func (j *docJobs) closePeriodDeferred(ctx context.Context, period string, step func(context.Context) error) error {
	lockID := "close:" + period
	_, err := j.locks.InsertOne(ctx, bson.D{{Key: "_id", Value: lockID}, {Key: "at", Value: time.Now()}})
	if mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("period %s is being closed", period)
	}
	if err != nil {
		return err
	}
	defer func() { _, _ = j.locks.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: lockID}}) }()
	return step(ctx)
}

// A done marker inserted first: its duplicate key is "ran before", and
// there is no claim to give back (the check is checkthenact's business).
func (j *docJobs) runOnce(ctx context.Context, id string, step func(context.Context) error) error {
	_, err := j.runs.InsertOne(ctx, bson.M{"_id": id, "at": time.Now()})
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return step(ctx)
}

type runDoc struct {
	ID    string `bson:"_id"`
	State string `bson:"state"`
}

func (j *docJobs) claimRun(ctx context.Context, id string) (bool, error) {
	_, err := j.runs.InsertOne(ctx, runDoc{ID: id, State: "processing"})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// An in-progress document claimed through a helper and left in place
// when the step fails.
func (j *docJobs) run(ctx context.Context, id string, step func(context.Context) error) error {
	fresh, err := j.claimRun(ctx, id)
	if err != nil || !fresh {
		return err
	}
	if err := step(ctx); err != nil {
		return fmt.Errorf("run %s: %w", id, err) // want `this error return leaves the key claimed by claimRun at docs.go:84 held: every retry is refused as in progress until its TTL or lease runs out; defer the key's release right after the claim`
	}
	_, err = j.runs.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"state": "done"}})
	return err
}

// The same, deleting the document on the failing path.
func (j *docJobs) runReleasing(ctx context.Context, id string, step func(context.Context) error) error {
	fresh, err := j.claimRun(ctx, id)
	if err != nil || !fresh {
		return err
	}
	if err := step(ctx); err != nil {
		_, _ = j.runs.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": id})
		return fmt.Errorf("run %s: %w", id, err)
	}
	_, err = j.runs.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"state": "done"}})
	return err
}

func ddbS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// A conditional put of a running item, left in place by a failed step.
func (j *docJobs) lease(ctx context.Context, slot string, step func(context.Context) error) error {
	_, err := j.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(j.table),
		Item:                map[string]types.AttributeValue{"pk": ddbS(slot), "status": ddbS("running")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := step(ctx); err != nil {
		return err // want `this error return leaves the key claimed by PutItem into table at docs.go:113 held: every retry is refused as in progress until its TTL or lease runs out; defer a DeleteItem of the document`
	}
	_, err = j.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String(j.table),
		Key:              map[string]types.AttributeValue{"pk": ddbS(slot)},
		UpdateExpression: aws.String("SET #s = :done"),
	})
	return err
}

func (j *docJobs) takeSlot(ctx context.Context, slot string) (bool, error) {
	_, err := j.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(j.table),
		Item:                map[string]types.AttributeValue{"pk": ddbS(slot), "status": ddbS("running")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return false, nil
	}
	return err == nil, err
}

func (j *docJobs) giveBack(ctx context.Context, slot string) {
	_, _ = j.ddb.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: aws.String(j.table),
		Key:       map[string]types.AttributeValue{"pk": ddbS(slot)},
	})
}

// A slot taken through a helper, given back by another when the step
// fails.
func (j *docJobs) runSlot(ctx context.Context, slot string, step func(context.Context) error) (err error) {
	ok, err := j.takeSlot(ctx, slot)
	if err != nil || !ok {
		return err
	}
	defer func() {
		if err != nil {
			j.giveBack(context.WithoutCancel(ctx), slot)
		}
	}()
	return step(ctx)
}

// The same without the release.
func (j *docJobs) runSlotHeld(ctx context.Context, slot string, step func(context.Context) error) error {
	ok, err := j.takeSlot(ctx, slot)
	if err != nil || !ok {
		return err
	}
	if err := step(ctx); err != nil {
		return err // want `this error return leaves the key claimed by takeSlot at docs.go:173 held: every retry is refused as in progress until its TTL or lease runs out; defer giveBack right after the claim`
	}
	return nil
}
