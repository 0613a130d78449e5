package idemhttp

import (
	"bytes"
	"net/http"
	"strings"
)

// recorder captures a handler's response so it can be stored before it is sent. It buffers the
// whole response: the client gets it only once the store knows its fate.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// reset readies the recorder for another response. The body buffer is dropped, not reused: the
// response it held went to the store and to BeforeStore, which may keep it.
func (r *recorder) reset() {
	clear(r.header)
	r.status = 0
	r.body = bytes.Buffer{}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// statusCode is the status the handler answered, 200 if it wrote nothing.
func (r *recorder) statusCode() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// hopByHop are the headers that belong to one connection, never to a stored response (RFC 9110
// section 7.6.1).
var hopByHop = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// storable returns a copy of h without hop-by-hop headers, including any the Connection header
// names.
func storable(h http.Header) http.Header {
	out := h.Clone()
	for _, v := range h.Values("Connection") {
		for _, name := range strings.Split(v, ",") {
			out.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopByHop {
		out.Del(name)
	}
	return out
}
