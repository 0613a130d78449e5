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
