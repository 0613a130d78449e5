// Package dynamodb is a minimal copy of github.com/aws/aws-sdk-go-v2/service/dynamodb's signatures.
package dynamodb

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type Options struct{ Region string }

type Client struct{}

type GetItemInput struct {
	Key            map[string]types.AttributeValue
	TableName      *string
	ConsistentRead *bool
}

type GetItemOutput struct {
	Item map[string]types.AttributeValue
}

type PutItemInput struct {
	Item                      map[string]types.AttributeValue
	TableName                 *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
	ReturnValues              types.ReturnValue
}

type PutItemOutput struct {
	Attributes map[string]types.AttributeValue
}

type UpdateItemInput struct {
	Key                       map[string]types.AttributeValue
	TableName                 *string
	ConditionExpression       *string
	UpdateExpression          *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
}

type UpdateItemOutput struct {
	Attributes map[string]types.AttributeValue
}

type DeleteItemInput struct {
	Key                       map[string]types.AttributeValue
	TableName                 *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]types.AttributeValue
}

type DeleteItemOutput struct {
	Attributes map[string]types.AttributeValue
}

func (c *Client) GetItem(ctx context.Context, params *GetItemInput, optFns ...func(*Options)) (*GetItemOutput, error) {
	return nil, nil
}

func (c *Client) PutItem(ctx context.Context, params *PutItemInput, optFns ...func(*Options)) (*PutItemOutput, error) {
	return nil, nil
}

func (c *Client) UpdateItem(ctx context.Context, params *UpdateItemInput, optFns ...func(*Options)) (*UpdateItemOutput, error) {
	return nil, nil
}

func (c *Client) DeleteItem(ctx context.Context, params *DeleteItemInput, optFns ...func(*Options)) (*DeleteItemOutput, error) {
	return nil, nil
}

type TransactWriteItemsInput struct {
	TransactItems      []types.TransactWriteItem
	ClientRequestToken *string
}

type TransactWriteItemsOutput struct{}

func (c *Client) TransactWriteItems(ctx context.Context, params *TransactWriteItemsInput, optFns ...func(*Options)) (*TransactWriteItemsOutput, error) {
	return nil, nil
}

type BatchWriteItemInput struct {
	RequestItems map[string][]types.WriteRequest
}

type BatchWriteItemOutput struct {
	UnprocessedItems map[string][]types.WriteRequest
}

func (c *Client) BatchWriteItem(ctx context.Context, params *BatchWriteItemInput, optFns ...func(*Options)) (*BatchWriteItemOutput, error) {
	return nil, nil
}
