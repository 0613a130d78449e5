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
