// Package types is a minimal copy of github.com/aws/aws-sdk-go-v2/service/sqs/types's signatures.
package types

type Message struct {
	Attributes    map[string]string
	Body          *string
	MessageId     *string
	ReceiptHandle *string
}
