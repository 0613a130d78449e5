// Package capture wraps an http.ResponseWriter and keeps a copy of what
// the handler wrote.
package capture

import (
	"bytes"
	"io"
	"net/http"
)

// Writer passes writes through and keeps the status and body.
type Writer struct {
	inner  http.ResponseWriter
	status int
	buf    *bytes.Buffer
	out    io.Writer
}

// Wrap returns a Writer over w.
func Wrap(w http.ResponseWriter) *Writer {
	buf := new(bytes.Buffer)
	return &Writer{inner: w, status: http.StatusOK, buf: buf, out: io.MultiWriter(w, buf)}
}

// Header returns the wrapped writer's header.
func (c *Writer) Header() http.Header { return c.inner.Header() }

// WriteHeader keeps the status and sends it.
func (c *Writer) WriteHeader(status int) {
	c.status = status
	c.inner.WriteHeader(status)
}

// Write sends b and keeps a copy.
func (c *Writer) Write(b []byte) (int, error) { return c.out.Write(b) }

// Status is the status the handler wrote.
func (c *Writer) Status() int { return c.status }

// Body is the body the handler wrote.
func (c *Writer) Body() string { return c.buf.String() }
