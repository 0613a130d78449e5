package attemptkey

import (
	"net/http"
	"strconv"
)

// Cloud Tasks calls an HTTP target again after a failure and says which
// try it is in a header: a key built from it is new on each.
type reminderTarget struct{ c *charges }

func (t *reminderTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) { // want ServeHTTP:"parameter 1 reaches charge"
	retries := r.Header.Get("X-CloudTasks-TaskRetryCount")
	if err := t.c.charge(r.Context(), r.Header.Get("X-CloudTasks-TaskName")+"-"+retries, 100); err != nil { // want `made by r.Header.Get\("X-CloudTasks-TaskRetryCount"\), the number of the attempt at taskheaders.go:\d+ for each request to ServeHTTP`
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func (t *reminderTarget) serveByName(w http.ResponseWriter, r *http.Request) {
	if n, _ := strconv.Atoi(r.Header.Get("X-CloudTasks-TaskRetryCount")); n > 5 {
		w.WriteHeader(http.StatusOK)
		return
	}
	if err := t.c.charge(r.Context(), r.Header.Get("X-CloudTasks-TaskName"), 100); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// The headers read as entries, and the count of executions, which counts
// the tries that reached the handler.
func (t *reminderTarget) remindEntry(w http.ResponseWriter, r *http.Request) {
	try := r.Header["X-CloudTasks-TaskRetryCount"]
	if len(try) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := t.c.charge(r.Context(), r.Header.Get("X-CloudTasks-TaskName")+"-"+try[0], 100); err != nil { // want `made by r.Header\["X-CloudTasks-TaskRetryCount"\], the number of the attempt at taskheaders.go:\d+ for each request to remindEntry`
		w.WriteHeader(http.StatusInternalServerError)
	}
}

func (t *reminderTarget) remindExecution(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("X-CloudTasks-TaskName") + "/" + r.Header.Get("X-CloudTasks-TaskExecutionCount")
	if err := t.c.charge(r.Context(), key, 100); err != nil { // want `made by r.Header.Get\("X-CloudTasks-TaskExecutionCount"\), the number of the attempt`
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// The task's name, read as an entry, is the same on every try.
func (t *reminderTarget) remindEntryByName(w http.ResponseWriter, r *http.Request) {
	name := r.Header["X-CloudTasks-TaskName"]
	if len(name) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if err := t.c.charge(r.Context(), name[0], 100); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
	}
}
