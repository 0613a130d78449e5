package checkthenact

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type dynamoConsumer struct {
	ddb   *dynamodb.Client
	table string
	hc    *http.Client
}

func attrS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func (c *dynamoConsumer) deliver(id string) error {
	_, err := c.hc.Post("https://hooks.example.com/"+id, "text/plain", strings.NewReader(id))
	return err
}

// GetItem, the work, then a PutItem with no condition: two deliveries
// both find no item.
func (c *dynamoConsumer) handle(ctx context.Context, id string) error {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(c.table),
		Key:       map[string]types.AttributeValue{"pk": attrS("evt#" + id)},
	})
	if err != nil {
		return err
	}
	if len(out.Item) > 0 {
		return nil
	}
	if err := c.deliver(id); err != nil {
		return err
	}
	_, err = c.ddb.PutItem(ctx, &dynamodb.PutItemInput{ // want `PutItem of table after the GetItem at dynamo.go:30 races with a concurrent retry: both find nothing and both run http.Post first`
		TableName: aws.String(c.table),
		Item:      map[string]types.AttributeValue{"pk": attrS("evt#" + id), "kind": attrS("delivery")},
	})
	return err
}

// The same check by a nil item, on a table named for processed events,
// with nothing between: the marker is overwritten either way, but both
// retries go on as new.
func (c *dynamoConsumer) seen(ctx context.Context, id string) (bool, error) {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("processed_events"),
		Key:       map[string]types.AttributeValue{"event_id": attrS(id)},
	})
	if err != nil {
		return false, err
	}
	if out.Item != nil {
		return true, nil
	}
	_, err = c.ddb.PutItem(ctx, &dynamodb.PutItemInput{ // want `PutItem of processed_events after the GetItem at dynamo.go:54 races with a concurrent retry; use PutItem with ConditionExpression attribute_not_exists on the key`
		TableName: aws.String("processed_events"),
		Item:      map[string]types.AttributeValue{"event_id": attrS(id)},
	})
	return false, err
}

// The put is the check: attribute_not_exists, and a failed condition is
// the answer.
func (c *dynamoConsumer) handleConditional(ctx context.Context, id string) error {
	_, err := c.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(c.table),
		Item:                map[string]types.AttributeValue{"pk": attrS("evt#" + id)},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.deliver(id)
}

// A fast-path GetItem before the conditional put, nothing between.
func (c *dynamoConsumer) handleFastPath(ctx context.Context, id string) error {
	key := map[string]types.AttributeValue{"pk": attrS("evt#" + id)}
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.table), Key: key})
	if err != nil || len(out.Item) > 0 {
		return err
	}
	_, err = c.ddb.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:           aws.String(c.table),
		Item:                map[string]types.AttributeValue{"pk": key["pk"]},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	return err
}

// A read of the state, then an update conditioned on it, which only one
// retry passes before the work.
func (c *dynamoConsumer) advance(ctx context.Context, id string) error {
	key := map[string]types.AttributeValue{"pk": attrS(id)}
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(c.table), Key: key})
	if err != nil || out.Item == nil {
		return err
	}
	_, err = c.ddb.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(c.table),
		Key:                       key,
		UpdateExpression:          aws.String("SET #s = :sent"),
		ConditionExpression:       aws.String("#s = :pending"),
		ExpressionAttributeNames:  map[string]string{"#s": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":sent": attrS("sent"), ":pending": attrS("pending")},
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.deliver(id)
}
