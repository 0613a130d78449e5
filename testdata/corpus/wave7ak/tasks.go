package wave7ak

import (
	"net/http"
	"strconv"
)

// RenewalTarget is the HTTP target of the Cloud Tasks queue that renews
// subscriptions. Cloud Tasks calls it again while it answers with an
// error; the task's name (X-CloudTasks-TaskName) stays the same, while
// X-CloudTasks-TaskRetryCount and X-CloudTasks-TaskExecutionCount count
// the tries.
type RenewalTarget struct {
	payments Payments
}

// Renew reads the headers as entries and charges under the task's name
// and its retry count: each retry charges again.
//
// corpus: bug attemptkey
// modelled on: sinmetalcraft/gcpbox cloudtasks/header.go (task headers read as entries of r.Header, the retry count parsed from one)
func (t *RenewalTarget) Renew(w http.ResponseWriter, r *http.Request) {
	name, ok := r.Header["X-CloudTasks-TaskName"]
	if !ok {
		http.Error(w, "not a Cloud Tasks request", http.StatusForbidden)
		return
	}
	retries := "0"
	if v, ok := r.Header["X-CloudTasks-TaskRetryCount"]; ok {
		retries = v[0]
	}
	amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
	if err := t.payments.Charge(r.Context(), r.URL.Query().Get("customer"), amount, name[0]+":"+retries); err != nil {
		http.Error(w, "renewal failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// RenewCounted charges under the task's name and the count of executions
// that reached the handler: a try that timed out after charging charges
// again on the next.
//
// corpus: bug attemptkey
// modelled on: sinmetalcraft/gcpbox cloudtasks/header.go (the task's name, retry count and execution count read from the request's headers)
func (t *RenewalTarget) RenewCounted(w http.ResponseWriter, r *http.Request) {
	task := r.Header.Get("X-CloudTasks-TaskName")
	runs := r.Header.Get("X-CloudTasks-TaskExecutionCount")
	amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
	if err := t.payments.Charge(r.Context(), r.URL.Query().Get("customer"), amount, task+"#"+runs); err != nil {
		http.Error(w, "renewal failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// RenewOnce charges under the task's name alone, the same on every try,
// and reads the retry count only to stop retrying a renewal that keeps
// failing.
//
// corpus: ok attemptkey
// modelled on: sinmetalcraft/gcpbox cloudtasks/header.go (the task's name and retry count read from the request's headers)
func (t *RenewalTarget) RenewOnce(w http.ResponseWriter, r *http.Request) {
	name, ok := r.Header["X-CloudTasks-TaskName"]
	if !ok {
		http.Error(w, "not a Cloud Tasks request", http.StatusForbidden)
		return
	}
	if v, ok := r.Header["X-CloudTasks-TaskRetryCount"]; ok {
		if n, _ := strconv.Atoi(v[0]); n >= 8 {
			w.WriteHeader(http.StatusOK) // give up: answering 2xx ends the retries
			return
		}
	}
	amount, _ := strconv.ParseInt(r.URL.Query().Get("amount"), 10, 64)
	if err := t.payments.Charge(r.Context(), r.URL.Query().Get("customer"), amount, "renewal/"+name[0]); err != nil {
		http.Error(w, "renewal failed", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}
