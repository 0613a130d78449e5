package calls

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func batchCalls(ctx context.Context, s *ddbStore, coll *mongo.Collection, key, sku string) {
	s.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{ // want `access claim TransactWriteItems Put record="dynamo idempotency"`
		{Put: &types.Put{ // want `part claim TransactWriteItems Put record="dynamo idempotency" keys=<sAttr\(key\); sAttr\("IN_PROGRESS"\)> written=<pk,status>`
			TableName:           aws.String("idempotency"),
			Item:                map[string]types.AttributeValue{"pk": sAttr(key), "status": sAttr("IN_PROGRESS")},
			ConditionExpression: aws.String("attribute_not_exists(pk)"),
		}},
		{Update: &types.Update{ // want `part update TransactWriteItems Update record="dynamo stock" keys=<sAttr\(sku\)> written=<held>`
			TableName:        aws.String("stock"),
			Key:              map[string]types.AttributeValue{"sku": sAttr(sku)},
			UpdateExpression: aws.String("ADD held :one"),
		}},
		{Update: &types.Update{ // want `part guarded update TransactWriteItems Update record="dynamo order" keys=<sAttr\(sku\)> written=<status>`
			TableName:                aws.String("orders"),
			Key:                      map[string]types.AttributeValue{"pk": sAttr(sku)},
			UpdateExpression:         aws.String("SET #s = :paid"),
			ConditionExpression:      aws.String("#s = :pending"),
			ExpressionAttributeNames: map[string]string{"#s": "status"},
		}},
		{Delete: &types.Delete{TableName: aws.String("carts"), Key: map[string]types.AttributeValue{"pk": sAttr(key)}}}, // want `part delete TransactWriteItems Delete record="dynamo cart" keys=<sAttr\(key\)>`
	}})
	var reqs []types.WriteRequest
	reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"pk": sAttr(key)}}}) // want `part write BatchWriteItem put record="dynamo event" keys=<sAttr\(key\)> written=<pk>`
	s.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"events": reqs}})         // want `access write BatchWriteItem put record="dynamo event"`

	coll.BulkWrite(ctx, []mongo.WriteModel{ // want `access claim BulkWrite UpdateOne record="mongo coll"`
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": key}).SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "running"}}).SetUpsert(true), // want `part claim BulkWrite UpdateOne record="mongo coll" keys=<key> written=<state>`
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": key}).SetUpdate(bson.M{"$set": bson.M{"state": "done"}}).SetUpsert(true),            // want `part write BulkWrite UpdateOne record="mongo coll" keys=<key> written=<state>`
		&mongo.ReplaceOneModel{Filter: bson.M{"_id": sku}, Replacement: bson.M{"n": 1}},                                                       // want `part write BulkWrite ReplaceOne record="mongo coll" keys=<sku> written=<n>`
		mongo.NewInsertOneModel().SetDocument(bson.M{"_id": sku}),                                                                             // want `part write BulkWrite InsertOne record="mongo coll" keys=<sku> written=<_id>`
		mongo.NewDeleteOneModel().SetFilter(bson.M{"_id": sku}),                                                                               // want `part delete BulkWrite DeleteOne record="mongo coll" keys=<sku>`
	})
	coll.InsertMany(ctx, []any{bson.M{"_id": key}}) // want `access write InsertMany record="mongo coll" keys=<key>` `part write InsertMany record="mongo coll" keys=<key> written=<_id>`
}
