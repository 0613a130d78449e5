package releaseonerror

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// A transaction claims the key in progress beside the stock hold; the
// charge fails and returns with the key held.
func (j *docJobs) reserve(ctx context.Context, key, sku string, charge func(context.Context) error) error {
	_, err := j.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:           aws.String("idempotency"),
			Item:                map[string]types.AttributeValue{"pk": ddbS(key), "status": ddbS("IN_PROGRESS")},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}},
		{Update: &types.Update{
			TableName:        aws.String("stock"),
			Key:              map[string]types.AttributeValue{"sku": ddbS(sku)},
			UpdateExpression: aws.String("ADD held :one"),
		}},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := charge(ctx); err != nil {
		return err // want `this error return leaves the key claimed by TransactWriteItems Put into idempotency at docstx.go:17 held`
	}
	_, err = j.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String("idempotency"),
		Key:              map[string]types.AttributeValue{"pk": ddbS(key)},
		UpdateExpression: aws.String("SET #s = :done, response_body = :b"),
	})
	return err
}

// The failed charge gives the key and the stock back in one transaction
// whose Delete removes the key's item.
func (j *docJobs) reserveReleasing(ctx context.Context, key, sku string, charge func(context.Context) error) error {
	_, err := j.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:           aws.String("idempotency"),
			Item:                map[string]types.AttributeValue{"pk": ddbS(key), "status": ddbS("IN_PROGRESS")},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}},
		{Update: &types.Update{
			TableName:        aws.String("stock"),
			Key:              map[string]types.AttributeValue{"sku": ddbS(sku)},
			UpdateExpression: aws.String("ADD held :one"),
		}},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := charge(ctx); err != nil {
		_, _ = j.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Delete: &types.Delete{TableName: aws.String("idempotency"), Key: map[string]types.AttributeValue{"pk": ddbS(key)}}},
			{Update: &types.Update{
				TableName:        aws.String("stock"),
				Key:              map[string]types.AttributeValue{"sku": ddbS(sku)},
				UpdateExpression: aws.String("ADD held :minus"),
			}},
		}})
		return err
	}
	_, err = j.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String("idempotency"),
		Key:              map[string]types.AttributeValue{"pk": ddbS(key)},
		UpdateExpression: aws.String("SET #s = :done, response_body = :b"),
	})
	return err
}

// A bulk upsert that only sets on insert claims the run; the failed
// step leaves it running.
func (j *docJobs) runBulk(ctx context.Context, id string, step func(context.Context) error) error {
	res, err := j.runs.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": id}).SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "running"}}).SetUpsert(true),
	})
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	if err := step(ctx); err != nil {
		return err // want `this error return leaves the key claimed by BulkWrite UpdateOne into runs at docstx.go:91 held`
	}
	_, err = j.runs.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"state": "done"}})
	return err
}

// A bulk write of plain inserts is no claim: nothing to give back.
func (j *docJobs) logBulk(ctx context.Context, id string, step func(context.Context) error) error {
	_, err := j.runs.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewInsertOneModel().SetDocument(bson.M{"run": id, "state": "running"}),
	})
	if err != nil {
		return err
	}
	return step(ctx)
}

// claimItem is the conditional put of a running item, for a transaction.
func (j *docJobs) claimItem(key string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName:           aws.String("idempotency"),
		Item:                map[string]types.AttributeValue{"pk": ddbS(key), "status": ddbS("RUNNING")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}
}

// cancelled reports whether a transaction was cancelled by a condition,
// and which item's.
func cancelled(err error) (int, bool) {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return 0, true
	}
	return -1, false
}

// The claim made by a helper's item; the duplicate, told by a kept
// predicate, has nothing to release, the failed step does.
func (j *docJobs) reserveByHelper(ctx context.Context, key string, step func(context.Context) error) error {
	_, err := j.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{j.claimItem(key)}})
	if _, dup := cancelled(err); dup {
		return errors.New("duplicate")
	}
	if err != nil {
		return err
	}
	if err := step(ctx); err != nil {
		return err // want `this error return leaves the key claimed by TransactWriteItems Put into idempotency at docstx.go:140 held`
	}
	_, err = j.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:        aws.String("idempotency"),
		Key:              map[string]types.AttributeValue{"pk": ddbS(key)},
		UpdateExpression: aws.String("SET #s = :done, response_body = :b"),
	})
	return err
}
