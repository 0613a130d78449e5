// Package tasktarget is the HTTP target of the shop's Cloud Tasks queue of
// payout reminders. Cloud Tasks calls it again while it answers with an
// error, numbering its tries in the X-CloudTasks-TaskRetryCount header.
package tasktarget

import (
	"context"
	"net/http"
	"strconv"
)

// Payouts pays sellers out.
type Payouts interface {
	Pay(ctx context.Context, sellerID string, idempotencyKey string) error
}

// Target handles the queue's calls.
type Target struct {
	payouts Payouts
}

// PayOut pays the seller under a key that carries the try's number: each
// retry Cloud Tasks makes after a timeout pays again.
//
// corpus: bug attemptkey
// modelled on: GoogleCloudPlatform/golang-samples tasks/create_http_task.go (an HTTP target task, which Cloud Tasks retries with X-CloudTasks-TaskRetryCount set)
func (t *Target) PayOut(w http.ResponseWriter, r *http.Request) {
	task := r.Header.Get("X-CloudTasks-TaskName")
	try := r.Header.Get("X-CloudTasks-TaskRetryCount")
	if err := t.payouts.Pay(r.Context(), r.URL.Query().Get("seller"), task+"/"+try); err != nil {
		http.Error(w, "payout failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// PayOutOnce pays under the task's name, the same on every try, and reads
// the try's number only to stop retrying a payout that keeps failing.
//
// corpus: ok attemptkey
// modelled on: GoogleCloudPlatform/golang-samples tasks/create_http_task.go (an HTTP target task, which Cloud Tasks retries with X-CloudTasks-TaskRetryCount set)
func (t *Target) PayOutOnce(w http.ResponseWriter, r *http.Request) {
	if n, _ := strconv.Atoi(r.Header.Get("X-CloudTasks-TaskRetryCount")); n >= 10 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	task := r.Header.Get("X-CloudTasks-TaskName")
	if err := t.payouts.Pay(r.Context(), r.URL.Query().Get("seller"), task); err != nil {
		http.Error(w, "payout failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
