package idemhttp

import (
	"bytes"
	"net/http"
	"net/textproto"
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

// hopByHop reports whether the header named k (as a Header key) belongs to one connection,
// never to a stored response (RFC 9110 section 7.6.1).
func hopByHop(k string) bool {
	switch k {
	case "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	return false
}

// storable returns a copy of h without hop-by-hop headers, including any the Connection header
// names: what h.Clone and h.Del of each would leave, in one pass.
func storable(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	conn := h["Connection"]
	nv := 0
	for _, vv := range h {
		nv += len(vv)
	}
	sv := make([]string, nv) // one array for all the values, as Clone does
	out := make(http.Header, len(h))
	for k, vv := range h {
		if hopByHop(k) || len(conn) > 0 && connectionNames(conn, k) {
			continue
		}
		if vv == nil {
			out[k] = nil // as Clone keeps it
			continue
		}
		n := copy(sv, vv)
		out[k] = sv[:n:n]
		sv = sv[n:]
	}
	return out
}

// connectionNames reports whether the Connection header values conn name the header k.
func connectionNames(conn []string, k string) bool {
	for _, v := range conn {
		for name := range strings.SplitSeq(v, ",") {
			if textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)) == k {
				return true
			}
		}
	}
	return false
}
