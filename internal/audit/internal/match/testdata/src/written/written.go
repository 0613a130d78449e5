package written

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

type doc struct {
	ID    string `bson:"_id"`
	State string `bson:"state"`
	Reply []byte `bson:",omitempty"`
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func writes(ctx context.Context, c *mongo.Collection, ddb *dynamodb.Client, key string, body []byte) {
	c.InsertOne(ctx, doc{ID: key, State: "pending"})                                             // want `written _id=key state="pending"`
	c.UpdateOne(ctx, bson.M{"_id": key}, bson.M{"$set": bson.M{"state": "done", "reply": body}}) // want `written state="done" reply=body`
	set := bson.D{{Key: "state", Value: "done"}}
	c.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: set}, {Key: "$inc", Value: bson.D{{"n", 1}}}}) // want `written state="done" n=1`
	c.ReplaceOne(ctx, bson.M{"_id": key}, doc{key, "done", body})                                                                 // want `written _id=key state="done" reply=body`
	c.DeleteOne(ctx, bson.M{"_id": key})
	ddb.PutItem(ctx, &dynamodb.PutItemInput{ // want `written pk=s\(key\) status=s\("running"\)`
		TableName: aws.String("jobs"),
		Item:      map[string]types.AttributeValue{"pk": s(key), "status": s("running")},
	})
	ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // want `written status=s\("done"\) updated_at=s\(time.Now\(\).String\(\)\) attempts=<nil>`
		TableName:                 aws.String("jobs"),
		Key:                       map[string]types.AttributeValue{"pk": s(key)},
		UpdateExpression:          aws.String("SET #s = :done, updated_at = :now ADD attempts :one"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":done": s("done"), ":now": s(time.Now().String())},
	})
}
