// Package sqs is a minimal copy of github.com/aws/aws-sdk-go-v2/service/sqs's signatures.
package sqs

import "context"

type Options struct{ Region string }

type Client struct{}

type SendMessageInput struct {
	MessageBody            *string
	QueueUrl               *string
	DelaySeconds           int32
	MessageDeduplicationId *string
	MessageGroupId         *string
}

type SendMessageOutput struct{ MessageId *string }

func (c *Client) SendMessage(ctx context.Context, params *SendMessageInput, optFns ...func(*Options)) (*SendMessageOutput, error) {
	return nil, nil
}
