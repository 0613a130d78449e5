package idemhttp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// ProblemType is the prefix of the RFC 9457 problem type of each answer the middleware gives
// itself, so clients can tell them from the handler's own errors.
const ProblemType = "urn:idemkit:problem:"

// Problem is an RFC 9457 problem details document.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// The problems the middleware answers with.
var (
	problemNoKey       = Problem{Type: ProblemType + "key-missing", Title: "Idempotency-Key header required", Status: http.StatusBadRequest}
	problemMalformed   = Problem{Type: ProblemType + "key-malformed", Title: "Malformed Idempotency-Key header", Status: http.StatusBadRequest}
	problemNoTenant    = Problem{Type: ProblemType + "tenant-unknown", Title: "Cannot scope the Idempotency-Key to a tenant", Status: http.StatusBadRequest}
	problemTooLarge    = Problem{Type: ProblemType + "request-too-large", Title: "Request body too large for an idempotent request", Status: http.StatusRequestEntityTooLarge}
	problemInProgress  = Problem{Type: ProblemType + "in-progress", Title: "A request with this Idempotency-Key is in progress", Status: http.StatusConflict}
	problemMismatch    = Problem{Type: ProblemType + "key-reused", Title: "Idempotency-Key reused for a different request", Status: http.StatusUnprocessableEntity}
	problemUnrecorded  = Problem{Type: ProblemType + "outcome-unrecorded", Title: "The request ran but its outcome could not be recorded; retry it", Status: http.StatusServiceUnavailable}
	problemUnavailable = Problem{Type: ProblemType + "store-unavailable", Title: "Idempotency store unavailable", Status: http.StatusServiceUnavailable}
	// problemOversize stands in for a response too large to store; it keeps that response's
	// status, because the outcome it reports is true: the request succeeded (or failed) once.
	problemOversize = Problem{Type: ProblemType + "response-too-large", Title: "The original response was too large to replay",
		Detail: "The request was processed once, with this status. Its response body exceeded the size the server stores for replays, so it cannot be repeated; the request will not be processed again with this Idempotency-Key."}
)

func (p Problem) with(detail string) Problem {
	p.Detail = detail
	return p
}

// body is the problem as JSON. The problems answered without a detail, among them the 409s of a
// duplicate storm, are marshalled once.
func (p Problem) body() []byte {
	if b, ok := problemBodies[p]; ok {
		return b
	}
	b, _ := json.Marshal(p) // strings and an int: cannot fail
	return b
}

var problemBodies = func() map[Problem][]byte {
	bodies := map[Problem][]byte{}
	for _, p := range []Problem{problemInProgress, problemMismatch, problemUnrecorded, problemUnavailable} {
		bodies[p], _ = json.Marshal(p)
	}
	return bodies
}()

func writeProblem(w http.ResponseWriter, p Problem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	w.Write(p.body())
}

// retryAfter renders a wait as whole seconds for the Retry-After header, never less than one.
func retryAfter(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	return strconv.FormatInt(max(s, 1), 10)
}
