// Package aws is a minimal copy of github.com/aws/aws-sdk-go-v2/aws's signatures.
package aws

func String(v string) *string { return &v }
