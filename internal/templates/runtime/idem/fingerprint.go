package idem

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
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
	ex, err := compileExclude(exclude)
	if err != nil {
		return nil, err
	}
	c := getCanonicalizer()
	defer c.release()
	out, err := c.canonicalize(body, ex)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(out), nil
}

// Fingerprint identifies a request for the "same key, different request" check: a SHA-256 over
// the method, the route and the body, written "sha256:<hex>". A body whose media type is JSON
// (application/json or any +json type) is hashed in canonical form with the exclude fields
// removed (see CanonicalJSON), so a retry that re-serialises its body or refreshes a timestamp
// still matches. Any other body, or a JSON body that is not I-JSON, is hashed as raw bytes: a
// retry must then resend the same bytes, as retrying clients do. The error is ErrInvalid for a
// malformed exclude list, which would otherwise go unnoticed until a mismatch.
//
// Fingerprint compiles exclude on every call; a server that fingerprints every request with the
// same list holds a Fingerprinter instead.
func Fingerprint(method, route string, body []byte, contentType string, exclude []string) (string, error) {
	f, err := NewFingerprinter(exclude)
	if err != nil {
		return "", err
	}
	return f.Fingerprint(method, route, body, contentType), nil
}

// Fingerprinter computes Fingerprint with one exclude list, compiled once. It is safe for
// concurrent use, and fingerprinting a request allocates only the returned string.
type Fingerprinter struct {
	exclude *excludeNode
}

// NewFingerprinter compiles the exclude list (see CanonicalJSON); a malformed one is ErrInvalid.
func NewFingerprinter(exclude []string) (*Fingerprinter, error) {
	ex, err := compileExclude(exclude)
	if err != nil {
		return nil, err
	}
	return &Fingerprinter{exclude: ex}, nil
}

// fingerprintLen is the length of a fingerprint: "sha256:" and 64 hex digits.
const fingerprintLen = len("sha256:") + 2*sha256.Size

// Fingerprint is the package's Fingerprint with f's exclude list.
func (f *Fingerprinter) Fingerprint(method, route string, body []byte, contentType string) string {
	var text [fingerprintLen]byte
	return string(f.AppendFingerprint(text[:0], method, route, body, contentType))
}

// AppendFingerprint appends the fingerprint Fingerprint returns to dst, allocating nothing when
// dst has room: for a caller that makes one string of it and of other text, such as the key it
// goes with.
func (f *Fingerprinter) AppendFingerprint(dst []byte, method, route string, body []byte, contentType string) []byte {
	c := getCanonicalizer()
	defer c.release()
	kind, payload := "raw", body
	if isJSON(contentType) {
		if out, err := c.canonicalize(body, f.exclude); err == nil {
			kind, payload = "jcs", out
		}
	}
	if c.hash == nil {
		c.hash = sha256.New()
	}
	// Every part is length-prefixed so no choice of method, route and body can shift bytes from
	// one part into another; the kind keeps a raw body from colliding with a canonical one.
	p := c.prefix[:0]
	for _, part := range [...]string{"idem-fingerprint-v1", method, route, kind} {
		p = binary.AppendUvarint(p, uint64(len(part)))
		p = append(p, part...)
	}
	p = binary.AppendUvarint(p, uint64(len(payload)))
	c.prefix = p
	c.hash.Reset()
	c.hash.Write(p)
	c.hash.Write(payload)
	c.hash.Sum(c.sum[:0])
	dst = append(dst, "sha256:"...)
	n := len(dst)
	dst = append(dst, make([]byte, 2*sha256.Size)...)
	hexSum((*[2 * sha256.Size]byte)(dst[n:]), &c.sum)
	return dst
}

// hexSum writes sum in lower-case hex, as hex.Encode does, four bytes at a time: the eight
// nibbles of a 32-bit word are spread into a byte each and turned into digits by word arithmetic,
// in about a quarter of the instructions of hex.Encode's table lookup per nibble.
func hexSum(dst *[2 * sha256.Size]byte, sum *[sha256.Size]byte) {
	const ones = 0x0101010101010101
	for i := 0; i < sha256.Size; i += 4 {
		v := uint64(binary.BigEndian.Uint32(sum[i:]))
		v = (v | v<<16) & 0x0000FFFF0000FFFF
		v = (v | v<<8) & 0x00FF00FF00FF00FF
		v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F // nibble n of the word in byte n, most significant first
		letters := (v + 6*ones) >> 4 & ones // 1 in the bytes of nibbles 10 to 15
		binary.BigEndian.PutUint64(dst[2*i:], v+'0'*ones+letters*('a'-'0'-10))
	}
}

// isJSON reports whether a Content-Type names JSON: application/json or a +json type, with any
// parameters, as mime.ParseMediaType reads it (a malformed one is not JSON). The common JSON
// spellings are recognised without parsing, and so is every type that is not JSON: the media type
// ParseMediaType returns is the part before any ';', trimmed and lower-cased, so one whose part
// does not end in "json" cannot be JSON, and the parse (which allocates) is left out.
func isJSON(contentType string) bool {
	if strings.EqualFold(contentType, "application/json") || strings.EqualFold(contentType, "application/json; charset=utf-8") {
		return true
	}
	base, _, _ := strings.Cut(contentType, ";")
	if base = strings.TrimSpace(base); len(base) < 4 || !strings.EqualFold(base[len(base)-4:], "json") {
		return false
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// excludeNode is a compiled exclude list: the member names excluded at one level of a document
// (drop) or with paths continuing inside them (children).
type excludeNode struct {
	drop     bool
	children []excludeChild
}

type excludeChild struct {
	name string
	key  uint64 // sortKey of name
	node *excludeNode
}

// compileExclude turns exclude paths into a tree walked alongside the document; nil when there
// are none.
func compileExclude(exclude []string) (*excludeNode, error) {
	if len(exclude) == 0 {
		return nil, nil
	}
	root := &excludeNode{}
	for _, e := range exclude {
		n := root
		for seg := range strings.SplitSeq(e, ".") {
			if seg == "" {
				return nil, fmt.Errorf("%w: exclude path %q has an empty segment", ErrInvalid, e)
			}
			next := n.child([]byte(seg))
			if next == nil {
				next = &excludeNode{}
				n.children = append(n.children, excludeChild{seg, sortKey([]byte(seg)), next})
			}
			n = next
		}
		n.drop = true
	}
	return root, nil
}

// child is the node for the member name inside n, or nil when no path goes through it. A nil n
// has no children.
func (n *excludeNode) child(name []byte) *excludeNode {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == string(name) {
			return c.node
		}
	}
	return nil
}

// member is child for the name of the member m the canonicalizer c recorded. The sort keys and
// lengths of the names tell most apart without reading them, and names of up to 8 bytes whose
// keys and lengths are equal are equal.
func (n *excludeNode) member(c *canonicalizer, m *member) *excludeNode {
	for i := range n.children {
		if e := &n.children[i]; e.key == m.key && len(e.name) == int(m.size) && (m.size <= 8 || e.name == string(c.nameOf(m))) {
			return e.node
		}
	}
	return nil
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
