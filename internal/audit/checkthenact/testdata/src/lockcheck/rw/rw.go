// Package rw records what a handler writes, for a replay.
package rw

import (
	"bytes"
	"net/http"
)

// Recorder passes writes on and keeps a copy.
type Recorder struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

// New wraps w.
func New(w http.ResponseWriter) *Recorder { return &Recorder{ResponseWriter: w, status: http.StatusOK} }

func (r *Recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *Recorder) Write(b []byte) (int, error) {
	r.buf.Write(b)
	return r.ResponseWriter.Write(b)
}

// Status is the status written.
func (r *Recorder) Status() int { return r.status }

// Body is the body written.
func (r *Recorder) Body() []byte { return r.buf.Bytes() }
