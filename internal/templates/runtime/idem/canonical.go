package idem

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does, so that a hostile
// body cannot exhaust the stack.
const maxDepth = 10000

// canonicalizer writes the RFC 8785 (JCS) canonical form of one I-JSON document in a single pass:
// members sorted by the UTF-16 code units of their names, strings with the minimal escapes,
// numbers as ECMAScript prints them, no whitespace. It is strict where JSON parsers are lenient:
// a duplicate member name, invalid UTF-8, an unpaired surrogate escape or a number a float64
// cannot carry exactly is an error (ErrNotIJSON), and so is anything after the value. Members on
// an exclude path are parsed and checked like the rest, then left out.
type canonicalizer struct {
	data  []byte
	pos   int
	depth int
}

// member is an object member on its way to being sorted.
type member struct {
	name  string
	value []byte // canonical; nil when excluded
}

func canonicalize(body []byte, paths [][]string) ([]byte, error) {
	c := &canonicalizer{data: body}
	out, err := c.value(make([]byte, 0, len(body)), paths)
	if err != nil {
		return nil, err
	}
	c.space()
	if c.pos != len(c.data) {
		return nil, c.errorf("data after the JSON value")
	}
	return out, nil
}

func (c *canonicalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d", ErrNotIJSON, fmt.Sprintf(format, args...), c.pos)
}

// space skips the four whitespace bytes JSON allows.
func (c *canonicalizer) space() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

// value appends the canonical form of the next value to out. paths are the exclude paths that
// apply inside it.
func (c *canonicalizer) value(out []byte, paths [][]string) ([]byte, error) {
	c.space()
	if c.pos >= len(c.data) {
		return nil, c.errorf("unexpected end of JSON")
	}
	switch b := c.data[c.pos]; {
	case b == '{':
		return c.object(out, paths)
	case b == '[':
		return c.array(out, paths)
	case b == '"':
		s, err := c.string()
		if err != nil {
			return nil, err
		}
		return appendString(out, s), nil
	case b == '-' || ('0' <= b && b <= '9'):
		return c.number(out)
	case c.literal("true"):
		return append(out, "true"...), nil
	case c.literal("false"):
		return append(out, "false"...), nil
	case c.literal("null"):
		return append(out, "null"...), nil
	}
	return nil, c.errorf("unexpected %q", c.data[c.pos])
}

func (c *canonicalizer) literal(word string) bool {
	if bytes.HasPrefix(c.data[c.pos:], []byte(word)) {
		c.pos += len(word)
		return true
	}
	return false
}

func (c *canonicalizer) enter() error {
	c.depth++
	if c.depth > maxDepth {
		return c.errorf("nesting deeper than %d", maxDepth)
	}
	return nil
}

func (c *canonicalizer) object(out []byte, paths [][]string) ([]byte, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer func() { c.depth-- }()
	c.pos++ // {
	var members []member
	c.space()
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		return append(out, "{}"...), nil
	}
	for {
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return nil, c.errorf("expected a member name")
		}
		name, err := c.string()
		if err != nil {
			return nil, err
		}
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return nil, c.errorf("expected ':' after a member name")
		}
		c.pos++
		drop, sub := excluded(name, paths)
		value, err := c.value(nil, sub)
		if err != nil {
			return nil, err
		}
		m := member{name: name}
		if !drop {
			m.value = value
		}
		members = append(members, m)
		c.space()
		if c.pos >= len(c.data) {
			return nil, c.errorf("unterminated object")
		}
		if c.data[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.data[c.pos] != '}' {
			return nil, c.errorf("expected ',' or '}' in an object")
		}
		c.pos++
		break
	}
	slices.SortFunc(members, func(a, b member) int { return compareUTF16(a.name, b.name) })
	out = append(out, '{')
	first := true
	for i, m := range members {
		if i > 0 && members[i-1].name == m.name {
			return nil, fmt.Errorf("%w: duplicate member name %q", ErrNotIJSON, m.name)
		}
		if m.value == nil {
			continue // excluded
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = appendString(out, m.name)
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}'), nil
}

// compareUTF16 orders two names by their UTF-16 code units, as RFC 8785 sorts members: as
// code points, except that a character beyond U+FFFF (a surrogate pair, from U+D800) comes
// before U+E000 to U+FFFF.
func compareUTF16(a, b string) int {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ha, la := utf16Units(ra)
			hb, lb := utf16Units(rb)
			if ha != hb {
				return cmp.Compare(ha, hb)
			}
			return cmp.Compare(la, lb)
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// utf16Units is r's first UTF-16 code unit and its second (0 for a single unit).
func utf16Units(r rune) (first, second rune) {
	if r < 0x10000 {
		return r, 0
	}
	return utf16.EncodeRune(r)
}

// excluded reports whether the member name is excluded at this level, and which paths apply
// inside its value.
func excluded(name string, paths [][]string) (drop bool, sub [][]string) {
	for _, p := range paths {
		if p[0] != name {
			continue
		}
		if len(p) == 1 {
			return true, nil
		}
		sub = append(sub, p[1:])
	}
	return false, sub
}

func (c *canonicalizer) array(out []byte, paths [][]string) ([]byte, error) {
	if err := c.enter(); err != nil {
		return nil, err
	}
	defer func() { c.depth-- }()
	c.pos++ // [
	out = append(out, '[')
	c.space()
	if c.pos < len(c.data) && c.data[c.pos] == ']' {
		c.pos++
		return append(out, ']'), nil
	}
	for i := 0; ; i++ {
		if i > 0 {
			out = append(out, ',')
		}
		var err error
		// An array applies the rest of the path to every element.
		if out, err = c.value(out, paths); err != nil {
			return nil, err
		}
		c.space()
		if c.pos >= len(c.data) {
			return nil, c.errorf("unterminated array")
		}
		if c.data[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.data[c.pos] != ']' {
			return nil, c.errorf("expected ',' or ']' in an array")
		}
		c.pos++
		return append(out, ']'), nil
	}
}

// string reads a string literal, unescaped; it must be UTF-8 and its escapes must pair their
// surrogates.
func (c *canonicalizer) string() (string, error) {
	c.pos++ // "
	start := c.pos
	// The common case: no escapes, all printable.
	for c.pos < len(c.data) {
		b := c.data[c.pos]
		if b == '"' {
			s := c.data[start:c.pos]
			if !utf8.Valid(s) {
				return "", c.errorf("invalid UTF-8 in a string")
			}
			c.pos++
			return string(s), nil
		}
		if b == '\\' || b < 0x20 {
			break
		}
		c.pos++
	}
	buf := append([]byte(nil), c.data[start:c.pos]...)
	for c.pos < len(c.data) {
		b := c.data[c.pos]
		switch {
		case b == '"':
			c.pos++
			if !utf8.Valid(buf) {
				return "", c.errorf("invalid UTF-8 in a string")
			}
			return string(buf), nil
		case b < 0x20:
			return "", c.errorf("control character in a string")
		case b != '\\':
			buf = append(buf, b)
			c.pos++
			continue
		}
		c.pos++
		if c.pos >= len(c.data) {
			break
		}
		e := c.data[c.pos]
		c.pos++
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, err := c.hex4()
			if err != nil {
				return "", err
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if !bytes.HasPrefix(c.data[c.pos:], []byte(`\u`)) {
					return "", c.errorf("unpaired surrogate \\u%04x", r)
				}
				c.pos += 2
				r2, err := c.hex4()
				if err != nil {
					return "", err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return "", c.errorf("unpaired surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
			case utf16.IsSurrogate(r):
				return "", c.errorf("unpaired surrogate \\u%04x", r)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", c.errorf("invalid escape \\%c", e)
		}
	}
	return "", c.errorf("unterminated string")
}

func (c *canonicalizer) hex4() (rune, error) {
	if c.pos+4 > len(c.data) {
		return 0, c.errorf("short \\u escape")
	}
	var r rune
	for _, h := range c.data[c.pos : c.pos+4] {
		r <<= 4
		switch {
		case '0' <= h && h <= '9':
			r |= rune(h - '0')
		case 'a' <= h && h <= 'f':
			r |= rune(h - 'a' + 10)
		case 'A' <= h && h <= 'F':
			r |= rune(h - 'A' + 10)
		default:
			return 0, c.errorf("invalid \\u escape")
		}
	}
	c.pos += 4
	return r, nil
}

// number reads a number per the JSON grammar and appends it as ECMAScript prints the float64 it
// denotes; a number the float64 does not carry exactly is refused (I-JSON).
func (c *canonicalizer) number(out []byte) ([]byte, error) {
	start := c.pos
	digits := func() int {
		n := 0
		for c.pos < len(c.data) && '0' <= c.data[c.pos] && c.data[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	if c.data[c.pos] == '-' {
		c.pos++
	}
	switch {
	case c.pos < len(c.data) && c.data[c.pos] == '0':
		c.pos++
	case digits() == 0:
		return nil, c.errorf("invalid number")
	}
	if c.pos < len(c.data) && c.data[c.pos] == '.' {
		c.pos++
		if digits() == 0 {
			return nil, c.errorf("invalid number")
		}
	}
	if c.pos < len(c.data) && (c.data[c.pos] == 'e' || c.data[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.data) && (c.data[c.pos] == '+' || c.data[c.pos] == '-') {
			c.pos++
		}
		if digits() == 0 {
			return nil, c.errorf("invalid number")
		}
	}
	text := c.data[start:c.pos]
	if plainInt(text) {
		if string(text) == "-0" {
			return append(out, '0'), nil
		}
		return append(out, text...), nil // already as ECMAScript prints it
	}
	return appendExact(out, string(text))
}

// plainInt reports whether a number of the JSON grammar is an integer of at most 15 digits,
// which a float64 carries exactly and ECMAScript prints as written.
func plainInt(text []byte) bool {
	digits := text
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// appendExact appends the number text as ECMAScript prints its float64, unless the float64 does
// not carry it exactly.
func appendExact(out []byte, text string) ([]byte, error) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || !exactInFloat64(text) {
		return nil, fmt.Errorf("%w: number %.40s does not fit a float64 exactly", ErrNotIJSON, text)
	}
	return appendES6Number(out, f), nil
}

// appendES6Number appends f as ECMAScript's Number.prototype.toString prints it, which RFC 8785
// adopts: the shortest digits that round-trip, in fixed notation from 1e-6 up to 1e21 and in
// exponent notation ("1e+21", "1.5e-7") outside; minus zero is "0".
func appendES6Number(out []byte, f float64) []byte {
	if f == 0 {
		return append(out, '0')
	}
	if abs := math.Abs(f); abs < 1e21 && abs >= 1e-6 {
		return strconv.AppendFloat(out, f, 'f', -1, 64)
	}
	s := strconv.AppendFloat(nil, f, 'e', -1, 64) // 1.5e-07, 1e+21
	i := bytes.IndexByte(s, 'e')
	out = append(out, s[:i+2]...) // mantissa, 'e', sign
	exp := s[i+2:]
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	return append(out, exp...)
}

// appendString appends s as a JSON string with RFC 8785's escapes: the two-character forms
// for \b \t \n \f \r " and \, \u00xx (lower-case hex) for the other control characters, every
// other character as itself.
func appendString(out []byte, s string) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x20 && b != '"' && b != '\\' {
			continue
		}
		out = append(out, s[start:i]...)
		switch b {
		case '"', '\\':
			out = append(out, '\\', b)
		case '\b':
			out = append(out, '\\', 'b')
		case '\t':
			out = append(out, '\\', 't')
		case '\n':
			out = append(out, '\\', 'n')
		case '\f':
			out = append(out, '\\', 'f')
		case '\r':
			out = append(out, '\\', 'r')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
		}
		start = i + 1
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}
