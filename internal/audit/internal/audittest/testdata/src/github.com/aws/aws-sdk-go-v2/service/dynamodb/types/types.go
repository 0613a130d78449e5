// Package types is a minimal copy of github.com/aws/aws-sdk-go-v2/service/dynamodb/types's signatures.
package types

type AttributeValue interface{ isAttributeValue() }

type AttributeValueMemberS struct{ Value string }

func (*AttributeValueMemberS) isAttributeValue() {}

type AttributeValueMemberN struct{ Value string }

func (*AttributeValueMemberN) isAttributeValue() {}

type AttributeValueMemberBOOL struct{ Value bool }

func (*AttributeValueMemberBOOL) isAttributeValue() {}

type ConditionalCheckFailedException struct {
	Message *string
	Item    map[string]AttributeValue
}

func (e *ConditionalCheckFailedException) Error() string { return "" }

type ReturnValue string

const ReturnValueAllOld ReturnValue = "ALL_OLD"

type Put struct {
	Item                      map[string]AttributeValue
	TableName                 *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]AttributeValue
}

type Update struct {
	Key                       map[string]AttributeValue
	TableName                 *string
	UpdateExpression          *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]AttributeValue
}

type Delete struct {
	Key                       map[string]AttributeValue
	TableName                 *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]AttributeValue
}

type ConditionCheck struct {
	Key                       map[string]AttributeValue
	TableName                 *string
	ConditionExpression       *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]AttributeValue
}

type TransactWriteItem struct {
	ConditionCheck *ConditionCheck
	Delete         *Delete
	Put            *Put
	Update         *Update
}

type CancellationReason struct {
	Code    *string
	Item    map[string]AttributeValue
	Message *string
}

type TransactionCanceledException struct {
	Message             *string
	CancellationReasons []CancellationReason
}

func (e *TransactionCanceledException) Error() string { return "" }

type PutRequest struct{ Item map[string]AttributeValue }

type DeleteRequest struct{ Key map[string]AttributeValue }

type WriteRequest struct {
	DeleteRequest *DeleteRequest
	PutRequest    *PutRequest
}
