// Package aws is a minimal copy of github.com/aws/aws-sdk-go-v2/aws's signatures.
package aws

func String(v string) *string { return &v }

func Bool(v bool) *bool { return &v }

func ToString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
