package calls

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type dynamoAPI interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
}

type ddbStore struct {
	ddb   *dynamodb.Client
	api   dynamoAPI
	dedup string
}

func sAttr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func dynamoCalls(ctx context.Context, s *ddbStore, id string) error {
	out, err := s.ddb.GetItem(ctx, &dynamodb.GetItemInput{ // want `access read GetItem record="dynamo dedup" keys=<sAttr\("evt#" \+ id\)>`
		TableName: aws.String(s.dedup),
		Key:       map[string]types.AttributeValue{"pk": sAttr("evt#" + id)},
	})
	if err != nil || len(out.Item) > 0 {
		return err
	}
	s.ddb.PutItem(ctx, &dynamodb.PutItemInput{ // want `access write PutItem record="dynamo dedup" keys=<sAttr\("evt#" \+ id\); sAttr\("x"\)>`
		TableName: aws.String(s.dedup),
		Item:      map[string]types.AttributeValue{"type": sAttr("x"), "pk": sAttr("evt#" + id)},
	})
	_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{ // want `access claim PutItem record="dynamo idempotency_key" keys=<&types.AttributeValueMemberS\{…\}; sAttr\("processing"\)>`
		TableName:                aws.String("idempotency_keys"),
		Item:                     map[string]types.AttributeValue{"status": sAttr("processing"), "k": &types.AttributeValueMemberS{Value: id}},
		ConditionExpression:      aws.String("attribute_not_exists(#k)"),
		ExpressionAttributeNames: map[string]string{"#k": "k"},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	key := map[string]types.AttributeValue{"pk": sAttr(id)}
	s.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // want `access update UpdateItem record="dynamo dedup" keys=<sAttr\(id\)>`
		TableName: aws.String(s.dedup), Key: key, UpdateExpression: aws.String("SET #s = :done"),
	})
	s.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{ // want `access guarded update UpdateItem record="dynamo dedup" keys=<sAttr\(id\)>`
		TableName: aws.String(s.dedup), Key: key, UpdateExpression: aws.String("SET #s = :done"),
		ConditionExpression: aws.String("#s = :running"),
	})
	in := &dynamodb.DeleteItemInput{TableName: aws.String(s.dedup), Key: key}
	s.ddb.DeleteItem(ctx, in) // want `access delete DeleteItem record="dynamo dedup" keys=<sAttr\(id\)>`
	return nil
}
