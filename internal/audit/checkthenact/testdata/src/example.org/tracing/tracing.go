// Package tracing stands for a third-party tracing library: its
// interfaces' method names (AddEvent, RecordError) say nothing of records.
package tracing

// Span is a unit of work being traced.
type Span interface {
	AddEvent(name string)
	RecordError(err error)
}
