package attemptkey

import (
	"context"

	"github.com/go-resty/resty/v2"
	"github.com/google/uuid"
	"google.golang.org/grpc/metadata"
)

// A resty request built afresh per attempt, its key with it.
func postResty(c *resty.Client, url string) error {
	var err error
	for range 3 {
		_, err = c.R().SetHeader("Idempotency-Key", uuid.NewString()).Post(url) // want `inside the retry loop at clients.go:\d+ reaches the Idempotency-Key header`
		if err == nil {
			return nil
		}
	}
	return err
}

func postRestyOnce(c *resty.Client, url string) error {
	key := uuid.NewString()
	var err error
	for range 3 {
		_, err = c.R().SetHeader("Idempotency-Key", key).SetHeader("X-Request-Id", uuid.NewString()).Post(url)
		if err == nil {
			return nil
		}
	}
	return err
}

// A gRPC call's idempotency key in its metadata, per attempt.
func callGRPC(ctx context.Context, call func(context.Context) error) error {
	var err error
	for range 3 {
		octx := metadata.AppendToOutgoingContext(ctx, "x-request-id", uuid.NewString(), "idempotency-key", uuid.NewString()) // want `reaches the idempotency-key metadata`
		if err = call(octx); err == nil {
			return nil
		}
	}
	return err
}

// EC2-style inputs carry an idempotency token.
type RunInstancesInput struct {
	ImageId     *string
	ClientToken *string
}

func runInstances(ctx context.Context, run func(context.Context, *RunInstancesInput) error) error {
	var err error
	for range 3 {
		token := uuid.NewString()
		if err = run(ctx, &RunInstancesInput{ClientToken: &token}); err == nil { // want `reaches ClientToken`
			return nil
		}
	}
	return err
}

// CloudFormation-style inputs name it ClientRequestToken.
type CreateStackInput struct {
	StackName          *string
	ClientRequestToken *string
}

func createStack(ctx context.Context, create func(context.Context, *CreateStackInput) error, name string) error {
	var err error
	for range 3 {
		in := &CreateStackInput{StackName: &name, ClientRequestToken: ptr(uuid.NewString())} // want `reaches ClientRequestToken`
		if err = create(ctx, in); err == nil {
			return nil
		}
	}
	return err
}

func ptr(s string) *string { return &s }
