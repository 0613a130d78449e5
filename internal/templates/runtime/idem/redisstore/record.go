package redisstore

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// A record is one Redis string, so that a claim is one plain SET and a replay is the reply to it.
// The first byte is the state:
//
//	P<token>|<gap>|<fingerprint>
//	C<expiry>|<len(fingerprint)>|<fingerprint><status>|<names>|<values>|{<len>|<name><n>|{<len>|<value>}}<body>
//
// In progress, the lease ends when the key's remaining time to live (PTTL) falls to gap
// milliseconds: the lease is kept relative to the key's own expiry, which Redis counts on its
// clock, so a claim needs no clock and no script. The token comes first, so a fenced write
// compares a prefix ("P<token>|"); tokens never hold '|'. Completed, the expiry is in Unix
// milliseconds on the clock of the client that completed it: it is only reported (as
// Record.Expires), Redis enforces the TTL on its own clock. The headers are length-prefixed so
// any bytes survive; names counts header names, values counts their values.

// errCorrupt: the key holds a string this store did not write.
var errCorrupt = errors.New("the key holds a value redisstore did not write: give the store a Prefix no other program writes under")

// heldPrefix is the start of an in-progress value that token holds.
func heldPrefix(token string) string { return "P" + token + "|" }

// inProgress encodes a new holder's value; px is the key's time to live in milliseconds.
func inProgress(token, fingerprint string, lease, px int64) string {
	var b strings.Builder
	b.Grow(len(token) + len(fingerprint) + 24)
	b.WriteByte('P')
	b.WriteString(token)
	b.WriteByte('|')
	b.WriteString(strconv.FormatInt(px-lease, 10))
	b.WriteByte('|')
	b.WriteString(fingerprint)
	return b.String()
}

// holder is the token in an in-progress value.
func holder(v string) string {
	if i := strings.IndexByte(v, '|'); i > 0 && v[0] == 'P' {
		return v[1:i]
	}
	return ""
}

// completion appends to b what the complete script puts after "C<expiry>|<len(fp)>|<fp>": the
// response.
func completion(b []byte, resp idem.Response) []byte {
	values, size := 0, len(resp.Body)+32
	for name, vs := range resp.Header {
		values += len(vs)
		size += len(name) + 12*len(vs) + 24
		for _, v := range vs {
			size += len(v)
		}
	}
	b = slices.Grow(b, size)
	b = strconv.AppendInt(b, int64(resp.Status), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(len(resp.Header)), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(values), 10)
	b = append(b, '|')
	for name, vs := range resp.Header {
		b = appendField(b, name)
		b = strconv.AppendInt(b, int64(len(vs)), 10)
		b = append(b, '|')
		for _, v := range vs {
			b = appendField(b, v)
		}
	}
	return append(b, resp.Body...)
}

func appendField(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '|')
	return append(b, s...)
}

// decoder reads a value front to back; the first malformed field sets bad.
type decoder struct {
	s   string
	bad bool
}

// int reads a decimal number ended by '|'.
func (d *decoder) int() int64 {
	i := strings.IndexByte(d.s, '|')
	if i < 0 {
		d.bad = true
		return 0
	}
	n, err := strconv.ParseInt(d.s[:i], 10, 64)
	if err != nil || n < 0 {
		d.bad = true
	}
	d.s = d.s[i+1:]
	return n
}

// field reads a length-prefixed string; it shares the value's memory.
func (d *decoder) field() string {
	n := d.int()
	if d.bad || n > int64(len(d.s)) {
		d.bad = true
		return ""
	}
	f := d.s[:n]
	d.s = d.s[n:]
	return f
}

// decodeHeld reads an in-progress value found with pttl milliseconds left to live at now. It
// returns the record and what remains of its lease.
func decodeHeld(key, v string, pttl int64, now time.Time) (idem.Record, time.Duration, error) {
	if len(v) == 0 || v[0] != 'P' {
		return idem.Record{}, 0, errCorrupt
	}
	i := strings.IndexByte(v, '|')
	if i < 0 {
		return idem.Record{}, 0, errCorrupt
	}
	d := decoder{s: v[i+1:]}
	gap := d.int()
	if d.bad || d.s == "" {
		return idem.Record{}, 0, errCorrupt
	}
	left := time.Duration(pttl-gap) * time.Millisecond
	return idem.Record{
		Key:          key,
		Fingerprint:  d.s,
		State:        idem.StateInProgress,
		LeaseExpires: now.Add(left),
		Expires:      now.Add(time.Duration(pttl) * time.Millisecond),
	}, left, nil
}

// decodeDone reads a completed value. When want is not empty and differs from the stored
// fingerprint, the response is left out: the caller is a mismatch, and must not see another
// request's answer. raw, when not nil, holds the same bytes as v and nobody else uses it: the
// body is then a slice of it rather than a copy.
func decodeDone(key, v, want string, raw []byte) (idem.Record, error) {
	if len(v) == 0 || v[0] != 'C' {
		return idem.Record{}, errCorrupt
	}
	d := decoder{s: v[1:]}
	rec := idem.Record{Key: key, State: idem.StateCompleted}
	rec.Expires = time.UnixMilli(d.int())
	rec.Fingerprint = d.field()
	if d.bad || rec.Fingerprint == "" {
		return idem.Record{}, errCorrupt
	}
	if want != "" && want != rec.Fingerprint {
		return rec, nil
	}
	rec.Response.Status = int(d.int())
	names, values := d.int(), d.int()
	if d.bad || names > int64(len(d.s)) || values > int64(len(d.s)) {
		return idem.Record{}, errCorrupt
	}
	if names > 0 {
		h := make(http.Header, names)
		all := make([]string, values)
		for range names {
			name := d.field()
			n := d.int()
			if d.bad || n > int64(len(all)) {
				return idem.Record{}, errCorrupt
			}
			vs := all[:n:n]
			all = all[n:]
			for j := range vs {
				vs[j] = d.field()
			}
			h[name] = vs
		}
		if d.bad || len(all) != 0 {
			return idem.Record{}, errCorrupt
		}
		rec.Response.Header = h
	}
	switch {
	case d.s == "":
	case len(raw) == len(v):
		rec.Response.Body = raw[len(raw)-len(d.s):]
	default:
		rec.Response.Body = []byte(d.s)
	}
	return rec, nil
}
