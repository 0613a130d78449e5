package rules

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The limits an answer must stay within, whether it comes from the form or
// an answers file: both call the Check functions below, so the two accept
// and refuse exactly the same things.
const (
	// MaxTTL is the longest key TTL idemkit accepts. A longer one is
	// "keep keys forever" in all but name (keys-forever): a retry that can
	// come after a year is guarded by a business key (a unique constraint
	// on the fact itself), not by an idempotency key.
	MaxTTL = Duration(366 * 24 * time.Hour)
	// MinTTL is the shortest: below a second no retry is covered at all.
	MinTTL = Duration(time.Second)
	// MaxDescription is the longest description, in bytes: a few
	// paragraphs; a longer text belongs in a document the spec links.
	MaxDescription = 4096
	// MaxSteps is the most downstream steps one operation may have: more
	// is a batch, whose items each get a key of their own from the run's.
	MaxSteps = 50
	// MaxKeyFormat is the longest key format template, in bytes; a key is
	// at most 255 bytes on the wire (RFC 9651 strings in the runtime).
	MaxKeyFormat = 255
	// MaxName is the longest name of a header, workflow, step, parameter
	// or job.
	MaxName = 128
)

// The classes of answer error, for errors.Is.
var (
	// ErrIdentityKey is a key format made of who is acting (user, tenant,
	// account) and perhaps a date, with no part that names the operation.
	ErrIdentityKey = errors.New("the key names who acts but not what they do")
	// ErrConstantKey is a key format without a placeholder: every
	// operation would share one key.
	ErrConstantKey = errors.New("the key format has no placeholder")
	// ErrHeaderName is a header name that is not an HTTP field name.
	ErrHeaderName = errors.New("not an HTTP header name")
	// ErrKeyPart is a name that becomes part of a key (a workflow, step,
	// parameter or job) but would make the key ambiguous.
	ErrKeyPart = errors.New("not usable in a key")
	// ErrTTLRange is a TTL below MinTTL or above MaxTTL.
	ErrTTLRange = errors.New("TTL out of range")
	// ErrTooLong is a text over its limit.
	ErrTooLong = errors.New("too long")
	// ErrTooMany is a list over its limit.
	ErrTooMany = errors.New("too many")
	// ErrLocation is a key location that names no place a value can be read.
	ErrLocation = errors.New("invalid key location")
)

// tchar is RFC 9110's token: the characters of an HTTP field name.
var tchar = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// CheckHeaderName reports whether name is an HTTP header name (an RFC 9110
// token): no spaces, colons or other separators, at most MaxName bytes.
func CheckHeaderName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: empty; e.g. Idempotency-Key", ErrHeaderName)
	case len(name) > MaxName:
		return fmt.Errorf("%w: %d bytes, at most %d", ErrHeaderName, len(name), MaxName)
	case !tchar.MatchString(name):
		return fmt.Errorf("%w: %q has %s; write letters, digits and '-', e.g. Idempotency-Key", ErrHeaderName, clip(name), badChar(name))
	}
	return nil
}

// CheckKeyPart reports whether name (a workflow, step, parameter or job
// name, what says which) can be a part of a key joined with ':'. A colon
// would make two keys equal ("a:b" + "c" and "a" + "b:c"), and spaces or
// control characters do not survive headers and logs.
func CheckKeyPart(what, name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%w: the %s name is empty", ErrKeyPart, what)
	case len(name) > MaxName:
		return fmt.Errorf("%w: the %s name is %d bytes, at most %d", ErrKeyPart, what, len(name), MaxName)
	case strings.Contains(name, ":"):
		return fmt.Errorf("%w: the %s name %q has a ':', the separator of key parts, so two different keys could read the same; use '-' or '.'", ErrKeyPart, what, clip(name))
	case strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("%w: the %s name %q has %s; use '-' or '_'", ErrKeyPart, what, clip(name), badChar(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: the %s name is not valid UTF-8", ErrKeyPart, what)
	}
	return nil
}

// CheckTTL parses a key TTL and checks it against MinTTL and MaxTTL;
// "forever" and its kin are ErrForever.
func CheckTTL(s string) (Duration, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, err
	}
	switch {
	case d < MinTTL:
		return 0, fmt.Errorf("%w: %s is below %s; no retry arrives that fast", ErrTTLRange, d, MinTTL)
	case d > MaxTTL:
		return 0, fmt.Errorf("%w: %s is over %s, which is keeping keys forever in all but name (keys-forever); "+
			"if a retry can come that late, guard the side effect with a business key (a unique constraint on the fact) instead", ErrTTLRange, d, MaxTTL)
	}
	return d, nil
}

// CheckDescription checks a design's free-text description.
func CheckDescription(s string) error {
	switch {
	case len(s) > MaxDescription:
		return fmt.Errorf("description %w: %d bytes, at most %d; link a document for more", ErrTooLong, len(s), MaxDescription)
	case !utf8.ValidString(s):
		return errors.New("description is not valid UTF-8")
	}
	return nil
}

// CheckSteps checks the number of downstream steps of one operation.
func CheckSteps(n int) error {
	if n > MaxSteps {
		return fmt.Errorf("%w downstream steps: %d, at most %d; an operation with that many side effects is a batch: give each item its own key from the run's ({run}:{item_id})", ErrTooMany, n, MaxSteps)
	}
	return nil
}

// CheckLocation checks a key location: a known kind and a name that kind
// can hold (a header name, a JSON pointer for a body field).
func CheckLocation(l Location) error {
	switch l.Kind {
	case LocationHeader:
		if err := CheckHeaderName(l.Name); err != nil {
			return fmt.Errorf("%w: %w", ErrLocation, err)
		}
	case LocationBody:
		if err := CheckJSONPointer(l.Name); err != nil {
			return fmt.Errorf("%w: %w", ErrLocation, err)
		}
	case LocationAttribute, LocationParameter, LocationRecord:
		if strings.TrimSpace(l.Name) == "" || len(l.Name) > MaxName {
			return fmt.Errorf("%w: a %s location needs a name of 1 to %d bytes", ErrLocation, l.Kind, MaxName)
		}
	case "":
		return fmt.Errorf("%w: no kind; one of %s", ErrLocation, strings.Join(LocationKinds(), ", "))
	default:
		return fmt.Errorf("%w: kind %q is not one of %s", ErrLocation, l.Kind, strings.Join(LocationKinds(), ", "))
	}
	return nil
}

// CheckJSONPointer checks an RFC 6901 JSON pointer to a field: it starts
// with '/', and '~' appears only as ~0 or ~1.
func CheckJSONPointer(p string) error {
	switch {
	case p == "" || p == "/":
		return fmt.Errorf("JSON pointer %q names the whole body; name a field, e.g. /id or /event/id", p)
	case p[0] != '/':
		return fmt.Errorf("JSON pointer %q must start with '/', e.g. /%s", clip(p), strings.ReplaceAll(clip(p), ".", "/"))
	case len(p) > MaxName*2:
		return fmt.Errorf("JSON pointer %w: %d bytes, at most %d", ErrTooLong, len(p), MaxName*2)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return fmt.Errorf("JSON pointer %q: '~' must be written ~0, and '/' inside a name ~1", clip(p))
		}
	}
	return nil
}

// clip shortens a value quoted in a message: a 1 MB answer is not echoed.
func clip(s string) string {
	if len(s) <= 60 {
		return s
	}
	i := 57
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

// badChar names the first character of s that is not allowed.
func badChar(s string) string {
	for _, r := range s {
		switch {
		case r == ' ':
			return "a space"
		case r == ':':
			return "a colon"
		case unicode.IsSpace(r) || unicode.IsControl(r):
			return fmt.Sprintf("the control character %U", r)
		case r > unicode.MaxASCII || !tchar.MatchString(string(r)):
			return fmt.Sprintf("%q", r)
		}
	}
	return "a character that is not allowed"
}
