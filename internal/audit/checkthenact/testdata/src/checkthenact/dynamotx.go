package checkthenact

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type txLedger struct {
	ddb *dynamodb.Client
}

// GetItem of the key, then a transaction whose Put of the key record has
// no condition: two retries both find nothing and both post the entry.
func (l *txLedger) post(ctx context.Context, key, account string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("idempotency_keys"),
		Key:       map[string]types.AttributeValue{"pk": attrS(key)},
	})
	if err != nil {
		return err
	}
	if out.Item != nil {
		return nil
	}
	_, err = l.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{ // want `TransactWriteItems Put of idempotency_keys after the GetItem at dynamotx.go:20 races with a concurrent retry`
		TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{
				TableName: aws.String("idempotency_keys"),
				Item:      map[string]types.AttributeValue{"pk": attrS(key), "status": attrS("DONE")},
			}},
			{Update: &types.Update{
				TableName:        aws.String("accounts"),
				Key:              map[string]types.AttributeValue{"pk": attrS(account)},
				UpdateExpression: aws.String("ADD balance :one"),
			}},
		},
	})
	return err
}

// The same transaction with the key's Put conditioned on
// attribute_not_exists: it is the check, atomically with the entry, and
// a cancelled transaction is the duplicate.
func (l *txLedger) postOnce(ctx context.Context, key, account string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("idempotency_keys"),
		Key:       map[string]types.AttributeValue{"pk": attrS(key)},
	})
	if err != nil {
		return err
	}
	if out.Item != nil {
		return nil
	}
	items := []types.TransactWriteItem{{Put: &types.Put{
		TableName:           aws.String("idempotency_keys"),
		Item:                map[string]types.AttributeValue{"pk": attrS(key), "status": attrS("DONE")},
		ConditionExpression: aws.String("attribute_not_exists(pk)"),
	}}}
	items = append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:        aws.String("accounts"),
		Key:              map[string]types.AttributeValue{"pk": attrS(account)},
		UpdateExpression: aws.String("ADD balance :one"),
	}})
	_, err = l.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return nil
	}
	return err
}

// The condition built with the expression package.
func (l *txLedger) postBuilt(ctx context.Context, key, account string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("idempotency_keys"),
		Key:       map[string]types.AttributeValue{"pk": attrS(key)},
	})
	if err != nil || out.Item != nil {
		return err
	}
	expr, err := expression.NewBuilder().WithCondition(expression.AttributeNotExists(expression.Name("pk"))).Build()
	if err != nil {
		return err
	}
	input := &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{
			TableName:                aws.String("idempotency_keys"),
			Item:                     map[string]types.AttributeValue{"pk": attrS(key)},
			ConditionExpression:      expr.Condition(),
			ExpressionAttributeNames: expr.Names(),
		}},
		{Update: &types.Update{
			TableName:        aws.String("accounts"),
			Key:              map[string]types.AttributeValue{"pk": attrS(account)},
			UpdateExpression: aws.String("ADD balance :one"),
		}},
	}}
	_, err = l.ddb.TransactWriteItems(ctx, input)
	return err
}

// The work's record moved from pending by a transaction that compares
// the status it read.
func (l *txLedger) settle(ctx context.Context, id string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("transfers"),
		Key:       map[string]types.AttributeValue{"pk": attrS(id)},
	})
	if err != nil {
		return err
	}
	if out.Item == nil {
		return errors.New("no transfer")
	}
	_, err = l.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{
		Update: &types.Update{
			TableName:                 aws.String("transfers"),
			Key:                       map[string]types.AttributeValue{"pk": attrS(id)},
			UpdateExpression:          aws.String("SET #s = :settled"),
			ConditionExpression:       aws.String("#s = :pending"),
			ExpressionAttributeNames:  map[string]string{"#s": "status"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":settled": attrS("settled"), ":pending": attrS("pending")},
		},
	}}})
	return err
}

// A batch's put is a plain write: two deliveries both find no marker and
// both deliver.
func (c *dynamoConsumer) handleBatched(ctx context.Context, id string) error {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("processed_events"),
		Key:       map[string]types.AttributeValue{"event_id": attrS(id)},
	})
	if err != nil {
		return err
	}
	if out.Item != nil {
		return nil
	}
	if err := c.deliver(id); err != nil {
		return err
	}
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{ // want `BatchWriteItem put of processed_events after the GetItem at dynamotx.go:137 races with a concurrent retry: both find nothing and both run`
		RequestItems: map[string][]types.WriteRequest{
			"processed_events": {{PutRequest: &types.PutRequest{Item: map[string]types.AttributeValue{"event_id": attrS(id)}}}},
		},
	})
	return err
}

// The batch writes other items, whose reading nothing checked.
func (c *dynamoConsumer) archive(ctx context.Context, id string) error {
	out, err := c.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("events"),
		Key:       map[string]types.AttributeValue{"event_id": attrS(id)},
	})
	if err != nil {
		return err
	}
	_, err = c.ddb.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{
			"archive": {{PutRequest: &types.PutRequest{Item: out.Item}}},
		},
	})
	return err
}

// A transaction that takes stock beside an unconditioned order put: a
// second retry that also found no order takes the stock again.
func (l *txLedger) reserve(ctx context.Context, orderID, sku string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("orders"),
		Key:       map[string]types.AttributeValue{"order_id": attrS(orderID)},
	})
	if err != nil || out.Item != nil {
		return err
	}
	_, err = l.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{ // want `TransactWriteItems Put of orders after the GetItem at dynamotx.go:178 races with a concurrent retry`
		{Update: &types.Update{
			TableName:        aws.String("stock"),
			Key:              map[string]types.AttributeValue{"sku": attrS(sku)},
			UpdateExpression: aws.String("ADD available :minus"),
		}},
		{Put: &types.Put{
			TableName: aws.String("orders"),
			Item:      map[string]types.AttributeValue{"order_id": attrS(orderID), "sku": attrS(sku)},
		}},
	}})
	return err
}

// The same transaction setting what it writes: done twice, it leaves the
// same items.
func (l *txLedger) record(ctx context.Context, orderID, sku string) error {
	out, err := l.ddb.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String("orders"),
		Key:       map[string]types.AttributeValue{"order_id": attrS(orderID)},
	})
	if err != nil || out.Item != nil {
		return err
	}
	_, err = l.ddb.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:        aws.String("skus"),
			Key:              map[string]types.AttributeValue{"sku": attrS(sku)},
			UpdateExpression: aws.String("SET last_order = :o"),
		}},
		{Put: &types.Put{
			TableName: aws.String("orders"),
			Item:      map[string]types.AttributeValue{"order_id": attrS(orderID), "sku": attrS(sku)},
		}},
	}})
	return err
}
