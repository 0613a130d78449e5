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
		return err // want `this error return leaves the key claimed by TransactWriteItems Put into idempotency at docstx.go:18 held`
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
		return err // want `this error return leaves the key claimed by BulkWrite UpdateOne into runs at docstx.go:92 held`
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
