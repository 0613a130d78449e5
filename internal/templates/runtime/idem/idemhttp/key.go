package idemhttp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dunglas/httpsfv"
)

// HeaderKey is the request header that carries the client's key (IETF draft
// "The Idempotency-Key HTTP Header Field").
const HeaderKey = "Idempotency-Key"

// MaxKeyLen is the longest client key accepted, in bytes.
const MaxKeyLen = 255

var (
	// ErrNoKey: the request has no Idempotency-Key header.
	ErrNoKey = errors.New("idemhttp: no Idempotency-Key header")
	// ErrMalformedKey: the header is present but is not one acceptable key.
	ErrMalformedKey = errors.New("idemhttp: malformed Idempotency-Key")
)

// ParseKey reads the client's key from the Idempotency-Key header values of one request. The
// draft standard makes the key an RFC 9651 String ("8e03978e-..." in quotes), parsed here by
// httpsfv; for compatibility with the many clients that send it unquoted, a bare value of visible
// ASCII is accepted too. Anything else is ErrMalformedKey: the header repeated, a list ("a, b"),
// another structured type, an empty key, control or non-ASCII characters, or over MaxKeyLen
// bytes. Parameters on a String are ignored, as RFC 9651 asks of unknown parameters.
func ParseKey(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", ErrNoKey
	case 1:
	default:
		return "", fmt.Errorf("%w: the header appears %d times", ErrMalformedKey, len(values))
	}
	v := trimBlanks(values[0])
	var key string
	if strings.HasPrefix(v, `"`) {
		item, err := httpsfv.UnmarshalItem([]string{v})
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrMalformedKey, err)
		}
		s, ok := item.Value.(string)
		if !ok {
			return "", fmt.Errorf("%w: not a String", ErrMalformedKey)
		}
		key = s
	} else {
		for i := 0; i < len(v); i++ {
			if c := v[i]; notBare[c] {
				return "", fmt.Errorf("%w: byte %q at %d is not allowed in an unquoted key (quote it as an RFC 9651 String)", ErrMalformedKey, c, i)
			}
		}
		key = v
	}
	if key == "" {
		return "", fmt.Errorf("%w: empty", ErrMalformedKey)
	}
	if len(key) > MaxKeyLen {
		return "", fmt.Errorf("%w: %d bytes, over %d", ErrMalformedKey, len(key), MaxKeyLen)
	}
	return key, nil
}

// notBare holds the bytes an unquoted key may not have: controls, space, DEL and non-ASCII, and
// the quote, comma, semicolon and backslash that belong to structured fields. One look in it
// per byte costs a quarter of testing each byte against them all, over keys such as UUIDs.
var notBare = func() (t [256]bool) {
	for c := range t {
		t[c] = c <= ' ' || c >= 0x7f || c == '"' || c == ',' || c == ';' || c == '\\'
	}
	return t
}()

// trimBlanks is strings.Trim(v, " \t"), without the set of cut bytes that Trim builds on each call.
func trimBlanks(v string) string {
	i, j := 0, len(v)
	for i < j && (v[i] == ' ' || v[i] == '\t') {
		i++
	}
	for j > i && (v[j-1] == ' ' || v[j-1] == '\t') {
		j--
	}
	return v[i:j]
}
