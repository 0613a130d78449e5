package checkthenact

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// carrier hands parcels over.
type carrier interface {
	Ship(ctx context.Context, id string) error
}

type shipments struct {
	col     *mongo.Collection
	carrier carrier
}

// dispatch decodes the shipment to skip one already sent, claims it with
// an upsert of $setOnInsert alone, and ships only when the upsert
// inserted: the claim decides.
func (s *shipments) dispatch(ctx context.Context, id string) error {
	var doc struct{ Status string }
	if err := s.col.FindOne(ctx, bson.M{"_id": id}).Decode(&doc); err == nil && doc.Status == "sent" {
		return nil
	}
	res, err := s.col.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$setOnInsert": bson.M{"status": "sending"}}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	if err := s.carrier.Ship(ctx, id); err != nil {
		s.col.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": id})
		return err
	}
	_, err = s.col.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"status": "sent"}})
	return err
}

// parcels keeps each parcel's state in DynamoDB.
type parcels struct {
	ddb     *dynamodb.Client
	carrier carrier
}

// send reads the parcel to skip one already sent, claims it with a put
// conditional on its absence, and ships only when the put went through.
func (p *parcels) send(ctx context.Context, id string) error {
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}}
	out, err := p.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("parcels"), Key: key})
	if err != nil {
		return err
	}
	if st, ok := out.Item["status"].(*types.AttributeValueMemberS); ok && st.Value == "sent" {
		return nil
	}
	_, err = p.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String("parcels"),
		Item:                map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: id}, "status": &types.AttributeValueMemberS{Value: "sending"}},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var taken *types.ConditionalCheckFailedException
	if errors.As(err, &taken) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := p.carrier.Ship(ctx, id); err != nil {
		return err
	}
	_, err = p.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String("parcels"),
		Key:                       key,
		UpdateExpression:          aws.String("SET #s = :sent"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":sent": &types.AttributeValueMemberS{Value: "sent"}},
	})
	return err
}
