// Package protocol is a minimal copy of github.com/segmentio/kafka-go's
// protocol package for analysistest.
package protocol

// Header is a record header.
type Header struct {
	Key   string
	Value []byte
}
