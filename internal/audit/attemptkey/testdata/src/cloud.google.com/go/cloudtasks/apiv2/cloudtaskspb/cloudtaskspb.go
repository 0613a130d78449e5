// Package cloudtaskspb is a minimal copy of the Cloud Tasks API's
// generated types.
package cloudtaskspb

type CreateTaskRequest struct {
	Parent string
	Task   *Task
}

// Task's Name, when given, deduplicates: Cloud Tasks refuses a second task
// under a name it has seen recently.
type Task struct {
	Name        string
	MessageType isTask_MessageType
}

type isTask_MessageType interface{ isTask_MessageType() }

type Task_HttpRequest struct{ HttpRequest *HttpRequest }

func (*Task_HttpRequest) isTask_MessageType() {}

type HttpRequest struct {
	Url  string
	Body []byte
}
