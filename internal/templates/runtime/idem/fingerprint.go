package idem

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"mime"
	"strconv"
	"strings"
)

// ErrNotIJSON: the body is not I-JSON (RFC 7493), the input RFC 8785 canonicalises: it is not
// JSON, has a duplicate member name or invalid UTF-8, or holds a number that a float64 cannot
// carry exactly (an int64 ID above 2^53), which canonical form would silently round into a
// different number.
var ErrNotIJSON = errors.New("idem: not I-JSON")

// CanonicalJSON returns the RFC 8785 canonical form of body with the exclude fields removed, so
// two bodies that differ only in member order, whitespace, number spelling or escaping — or in
// the excluded fields — give the same bytes.
//
// Each exclude entry is a dot-separated path of member names from the top ("timestamp",
// "metadata.request_id"); arrays on the way apply the rest of the path to every element
// ("items.price"). A member name that itself contains a dot cannot be excluded. An empty entry or
// segment is an error (ErrInvalid), as is a body that is not I-JSON (ErrNotIJSON).
func CanonicalJSON(body []byte, exclude []string) ([]byte, error) {
	paths, err := parseExclude(exclude)
	if err != nil {
		return nil, err
	}
	return canonicalize(body, paths)
}

// Fingerprint identifies a request for the "same key, different request" check: a SHA-256 over
// the method, the route and the body, written "sha256:<hex>". A body whose media type is JSON
// (application/json or any +json type) is hashed in canonical form with the exclude fields
// removed (see CanonicalJSON), so a retry that re-serialises its body or refreshes a timestamp
// still matches. Any other body, or a JSON body that is not I-JSON, is hashed as raw bytes: a
// retry must then resend the same bytes, as retrying clients do. The error is ErrInvalid for a
// malformed exclude list, which would otherwise go unnoticed until a mismatch.
func Fingerprint(method, route string, body []byte, contentType string, exclude []string) (string, error) {
	paths, err := parseExclude(exclude)
	if err != nil {
		return "", err
	}
	kind, payload := "raw", body
	if isJSON(contentType) {
		if c, err := canonicalize(body, paths); err == nil {
			kind, payload = "jcs", c
		}
	}
	h := sha256.New()
	// Every part is length-prefixed so no choice of method, route and body can shift bytes from
	// one part into another; the kind keeps a raw body from colliding with a canonical one.
	for _, part := range [][]byte{[]byte("idem-fingerprint-v1"), []byte(method), []byte(route), []byte(kind), payload} {
		writePart(h, part)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

func writePart(h hash.Hash, b []byte) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))])
	h.Write(b)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

func parseExclude(exclude []string) ([][]string, error) {
	paths := make([][]string, 0, len(exclude))
	for _, e := range exclude {
		p := strings.Split(e, ".")
		for _, seg := range p {
			if seg == "" {
				return nil, fmt.Errorf("%w: exclude path %q has an empty segment", ErrInvalid, e)
			}
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// exactInFloat64 reports whether the JSON number s has the same value as the float64 it parses
// to, by comparing decimal digits and exponents: no big arithmetic, so a number with a huge
// exponent costs no more than its length.
func exactInFloat64(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	want, ok := decimal(s)
	if !ok {
		return false
	}
	got, _ := decimal(strconv.FormatFloat(f, 'e', -1, 64))
	return want == got
}

type dec struct {
	neg    bool
	digits string // no leading or trailing zeros; empty for zero
	exp    int    // value = digits × 10^exp
}

// decimal normalises a JSON number's text; ok is false when the exponent does not fit an int.
func decimal(s string) (d dec, ok bool) {
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		e, err := strconv.Atoi(expText)
		if err != nil {
			return d, false
		}
		d.exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	d.exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	d.exp += len(digits) - len(trimmed)
	d.digits = trimmed
	if d.digits == "" {
		return dec{}, true
	}
	return d, true
}
