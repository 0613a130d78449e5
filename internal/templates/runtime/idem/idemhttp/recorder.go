package idemhttp

import (
	"bytes"
	"net/http"
	"net/textproto"
	"strings"
)

// recorder captures a handler's response so it can be stored before it is sent. It buffers the
// whole response: the client gets it only once the store knows its fate.
//
// The response that goes to the store, and to BeforeStore, is made of the recorder's header map
// and body buffer (see storable), not copied. A store keeps a copy of what it stores (see
// idem.Store.Complete), so the map and the buffer serve the exchange's next response, cleared;
// BeforeStore may keep what it is given, so a middleware that has one gives each response that
// ran a map and a buffer of its own. The values in the map are never reused either way: send
// hands them to the client's header.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	// fields are header's keys and values, read from the map once the handler has returned (see
	// readFields). What needs the header after that, the check for hop-by-hop headers and send,
	// walks them rather than the map: each walk over a map starts at a random place, and drawing
	// it costs more than the rest of a walk over a few keys.
	fields []headerField
}

// headerField is one key of a header, with its values.
type headerField struct {
	key    string
	values []string
}

// readFields reads the header map into fields, once the handler has returned, and reports
// whether any of its keys is hop-by-hop (see storable).
func (r *recorder) readFields() (anyHopByHop bool) {
	for k, vv := range r.header {
		r.fields = append(r.fields, headerField{k, vv})
		anyHopByHop = anyHopByHop || hopByHop(k)
	}
	return anyHopByHop
}

// maxPooledHeader keeps the pool from holding on to the header map of a rare response with many
// header keys, as maxPooledBody does for its body buffer.
const maxPooledHeader = 32

// reset readies the recorder for another response. kept says that the header map and body
// buffer went with a response that may still be held: the next one gets new ones. Otherwise they
// serve again, cleared, unless they grew past what is worth keeping.
func (r *recorder) reset(kept bool) {
	if kept || len(r.header) > maxPooledHeader || r.body.Cap() > maxPooledBody {
		r.header = http.Header{}
		r.body = bytes.Buffer{}
	} else {
		clear(r.header)
		r.body.Reset()
	}
	// The fields are not cleared: the next response overwrites them, and until then they hold
	// only what the header map held.
	if cap(r.fields) > maxPooledHeader {
		r.fields = nil
	}
	r.fields = r.fields[:0]
	r.status = 0
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

// storable returns h without hop-by-hop headers, including any the Connection header names: h
// itself when hop, which says whether it has any, is false (almost always), else a copy without
// them — what h.Clone and h.Del of each would leave, in one pass. h goes to the client as it is.
func storable(h http.Header, hop bool) http.Header {
	if h == nil || !hop { // Connection is one of them
		return h
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
