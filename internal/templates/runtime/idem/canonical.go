package idem

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json does, so that a hostile
// body cannot exhaust the stack.
const maxDepth = 10000

// canonicalizer writes the RFC 8785 (JCS) canonical form of one I-JSON document in a single pass
// over its bytes, into one buffer: members sorted by the UTF-16 code units of their names,
// strings with the minimal escapes, numbers as ECMAScript prints them, no whitespace. No tree is
// built. Most of a compact document is its own canonical form, so the input is copied in runs:
// only whitespace, an escape to rewrite, a number spelled otherwise or an excluded member ends a
// run. An object's members are recorded as spans of the output, and only an object whose names
// arrive out of order is rearranged in place when it closes. It is strict where JSON parsers are
// lenient: a duplicate member name, invalid UTF-8, an unpaired surrogate escape or a number a
// float64 cannot carry exactly is an error (ErrNotIJSON), and so is anything after the value.
// Members on an exclude path are parsed and checked like the rest, then left out.
//
// Its buffers are kept between documents (canonicalizers are pooled), so a request's fingerprint
// allocates nothing for the canonical form.
type canonicalizer struct {
	data  []byte
	pos   int
	depth int
	// run is where the input not yet copied to out starts: data[run:pos] is canonical as it
	// stands and goes to out as it is (flush).
	run int
	out []byte
	// members holds the members of the objects open at pos, innermost last.
	members []member
	// names holds the unescaped names that had escapes in the input; other names are slices of
	// data.
	names []byte
	// escapedName says that the name string last returned is in names.
	escapedName bool
	// scratch and order serve reorder.
	scratch []byte
	order   []int32
	// Fingerprint's hash, the parts it hashes before the body, and the sum.
	hash   hash.Hash
	prefix []byte
	sum    [32]byte
}

// member is an object member written to out, waiting for its object to close. It holds no
// pointers, so that recording one costs no write barrier.
type member struct {
	key        uint64 // sortKey of the name
	name       int    // the unescaped name: data[name:name+size], or c.names[...] if escaped
	size       int
	start, end int  // its `"name":value` in out
	escaped    bool // the name is in c.names
	drop       bool // excluded: checked, not written
}

// maxPooledBuffer keeps the pool from holding on to the buffers of a rare huge document.
const maxPooledBuffer = 64 << 10

var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

func getCanonicalizer() *canonicalizer { return canonicalizers.Get().(*canonicalizer) }

func (c *canonicalizer) release() {
	if cap(c.out) > maxPooledBuffer || cap(c.scratch) > maxPooledBuffer || cap(c.names) > maxPooledBuffer ||
		cap(c.members) > maxPooledBuffer/64 || cap(c.order) > maxPooledBuffer/4 {
		return
	}
	c.data, c.names, c.members = nil, c.names[:0], c.members[:0]
	canonicalizers.Put(c)
}

// canonicalize writes the canonical form of body, without the members ex excludes, to c.out and
// returns it; it is valid until c is released.
func (c *canonicalizer) canonicalize(body []byte, ex *excludeNode) ([]byte, error) {
	c.data, c.pos, c.depth, c.run = body, 0, 0, 0
	c.out, c.names, c.members = c.out[:0], c.names[:0], c.members[:0]
	if err := c.value(ex); err != nil {
		return nil, err
	}
	c.space()
	if c.pos != len(c.data) {
		return nil, c.errorf("data after the JSON value")
	}
	c.flush()
	return c.out, nil
}

func (c *canonicalizer) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d", ErrNotIJSON, fmt.Sprintf(format, args...), c.pos)
}

// flush copies the pending run of input to out.
func (c *canonicalizer) flush() {
	c.out = append(c.out, c.data[c.run:c.pos]...)
	c.run = c.pos
}

// outLen is the length of out once the pending run is copied: where what comes next will be.
func (c *canonicalizer) outLen() int { return len(c.out) + c.pos - c.run }

// space skips the four whitespace bytes JSON allows, leaving them out of the output. It is
// small enough to inline: a compact document has no whitespace.
func (c *canonicalizer) space() {
	if c.pos < len(c.data) && c.data[c.pos] <= ' ' {
		c.skipSpace()
	}
}

//go:noinline
func (c *canonicalizer) skipSpace() {
	c.flush()
	for c.pos < len(c.data) && (c.data[c.pos] == ' ' || c.data[c.pos] == '\t' || c.data[c.pos] == '\n' || c.data[c.pos] == '\r') {
		c.pos++
	}
	c.run = c.pos
}

// value reads the next value, its canonical form going to the output. ex holds the exclude
// paths that apply inside it.
func (c *canonicalizer) value(ex *excludeNode) error {
	c.space()
	if c.pos >= len(c.data) {
		return c.errorf("unexpected end of JSON")
	}
	switch b := c.data[c.pos]; {
	case b == '{':
		return c.object(ex)
	case b == '[':
		return c.array(ex)
	case b == '"':
		_, err := c.string(false)
		return err
	case b == '-' || ('0' <= b && b <= '9'):
		return c.number()
	case c.literal("true"), c.literal("false"), c.literal("null"):
		return nil
	}
	return c.errorf("unexpected %q", c.data[c.pos])
}

// literal reads word, canonical as it stands, if it comes next.
func (c *canonicalizer) literal(word string) bool {
	if len(c.data)-c.pos >= len(word) && string(c.data[c.pos:c.pos+len(word)]) == word {
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

func (c *canonicalizer) object(ex *excludeNode) error {
	if err := c.enter(); err != nil {
		return err
	}
	open := c.outLen()
	c.pos++ // {
	base := len(c.members)
	c.space()
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		c.depth--
		return nil
	}
	// sorted stays true while each name comes after the one before, which leaves nothing to
	// rearrange. dropComma is set when an excluded member was the first in the output so far:
	// the comma after it must go too.
	sorted, written, dropComma := true, 0, false
	for {
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return c.errorf("expected a member name")
		}
		m := member{start: c.outLen()}
		name, err := c.string(true)
		if err != nil {
			return err
		}
		m.key, m.size = sortKey(name), len(name)
		if m.escaped = c.escapedName; m.escaped {
			m.name = len(c.names) - len(name)
		} else {
			m.name = c.pos - 1 - len(name)
		}
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return c.errorf("expected ':' after a member name")
		}
		c.pos++
		sub := ex.child(name)
		// Most values are strings and numbers: read them without value's dispatch.
		c.space()
		var b byte
		if c.pos < len(c.data) {
			b = c.data[c.pos]
		}
		switch {
		case b == '"':
			_, err = c.string(false)
		case b == '-' || '0' <= b && b <= '9':
			err = c.number()
		default:
			err = c.value(sub)
		}
		if err != nil {
			return err
		}
		m.end = c.outLen()
		if sub != nil && sub.drop {
			// Out with the member, and with the comma before it if there is one.
			m.drop = true
			c.flush()
			if written > 0 {
				c.out = c.out[:m.start-1]
			} else {
				c.out = c.out[:m.start]
				dropComma = true
			}
		} else {
			written++
		}
		if n := len(c.members); n > base && (c.members[n-1].key > m.key || c.members[n-1].key == m.key && c.compare(&c.members[n-1], &m) >= 0) {
			sorted = false // or a duplicate, found once sorted
		}
		c.members = append(c.members, m)
		c.space()
		if c.pos >= len(c.data) {
			return c.errorf("unterminated object")
		}
		if c.data[c.pos] == ',' {
			if dropComma {
				c.flush()
				c.run++
				dropComma = false
			}
			c.pos++
			continue
		}
		if c.data[c.pos] != '}' {
			return c.errorf("expected ',' or '}' in an object")
		}
		break
	}
	if !sorted {
		c.flush()
		if err := c.reorder(open, c.members[base:]); err != nil {
			return err
		}
	}
	c.pos++ // }
	c.members = c.members[:base]
	c.depth--
	return nil
}

// reorder sorts the members of the object opened at out[open] and rewrites them in that order.
// It sorts their indexes, which move cheaper than members.
func (c *canonicalizer) reorder(open int, ms []member) error {
	order := c.order[:0]
	for i := range ms {
		order = append(order, int32(i))
	}
	c.order = order
	if len(ms) <= 32 {
		// Insertion sort: objects are small, and most names differ in their keys. Each member
		// is compared with both its final neighbours on the way, so a duplicate shows up as a
		// tie.
		for i := 1; i < len(order); i++ {
			o := order[i]
			m := &ms[o]
			j := i
			for ; j > 0; j-- {
				p := &ms[order[j-1]]
				if p.key < m.key {
					break
				}
				if p.key == m.key {
					if cmp := c.compare(p, m); cmp == 0 {
						return fmt.Errorf("%w: duplicate member name %q", ErrNotIJSON, c.name(m))
					} else if cmp < 0 {
						break
					}
				}
				order[j] = order[j-1]
			}
			order[j] = o
		}
	} else {
		slices.SortFunc(order, func(a, b int32) int { return c.compare(&ms[a], &ms[b]) })
		for i := 1; i < len(order); i++ {
			if p, m := &ms[order[i-1]], &ms[order[i]]; p.key == m.key && c.compare(p, m) == 0 {
				return fmt.Errorf("%w: duplicate member name %q", ErrNotIJSON, c.name(m))
			}
		}
	}
	// The object's members are written in order after a copy of what precedes them: to scratch,
	// which then takes the place of out, when that is the shorter copy (the object is most of the
	// document so far); else back into out from a copy of the object in scratch.
	body := open + 1
	if body < len(c.out)-body {
		dst := append(c.scratch[:0], c.out[:body]...)
		c.out, c.scratch = appendMembers(dst, body, ms, order, c.out, 0), c.out
		return nil
	}
	c.scratch = append(c.scratch[:0], c.out[body:]...)
	c.out = appendMembers(c.out[:body], body, ms, order, c.scratch, body)
	return nil
}

// appendMembers appends the members to dst in the given order, comma-separated; their spans are
// in src, shifted by off.
func appendMembers(dst []byte, body int, ms []member, order []int32, src []byte, off int) []byte {
	for _, o := range order {
		if m := &ms[o]; !m.drop {
			if len(dst) > body {
				dst = append(dst, ',')
			}
			dst = append(dst, src[m.start-off:m.end-off]...)
		}
	}
	return dst
}

// name is m's name, unescaped.
func (c *canonicalizer) name(m *member) []byte {
	if m.escaped {
		return c.names[m.name : m.name+m.size]
	}
	return c.data[m.name : m.name+m.size]
}

// compare orders two members by their names, as RFC 8785 sorts them; most are told apart by
// their keys alone.
func (c *canonicalizer) compare(a, b *member) int {
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	return compareUTF16(c.name(a), c.name(b))
}

// utf16Order maps each byte of UTF-8 text to one whose byte order is the order of the text's
// UTF-16 code units, as RFC 8785 sorts member names: code point order — UTF-8's own byte order —
// except that a character beyond U+FFFF (lead byte F0 to F4; a surrogate pair in UTF-16, from
// U+D800) sorts before one from U+E000 to U+FFFF (lead byte EE or EF). Where two names first
// differ, both are at a lead byte or both inside characters of one lead byte, so comparing the
// mapped bytes there decides.
var utf16Order = func() (t [256]byte) {
	for b := range t {
		t[b] = byte(b)
	}
	for b := 0xF0; b <= 0xF4; b++ {
		t[b] = byte(b - 2) // EE to F2
	}
	t[0xEE], t[0xEF] = 0xF3, 0xF4
	return t
}()

// compareUTF16 orders two names by their UTF-16 code units.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	return int(utf16Order[a[i]]) - int(utf16Order[b[i]])
}

// sortKey is the first 8 bytes of a name mapped by utf16Order, zero-padded, as a big-endian
// number: when two keys differ, they order their names.
func sortKey(name []byte) uint64 {
	var k uint64
	if len(name) >= 8 {
		k = binary.BigEndian.Uint64(name)
	} else {
		for i, x := range name {
			k |= uint64(x) << (56 - 8*i)
		}
	}
	if k&0x8080808080808080 != 0 {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], k)
		for i, x := range b {
			b[i] = utf16Order[x]
		}
		k = binary.BigEndian.Uint64(b[:])
	}
	return k
}

func (c *canonicalizer) array(ex *excludeNode) error {
	if err := c.enter(); err != nil {
		return err
	}
	c.pos++ // [
	c.space()
	if c.pos < len(c.data) && c.data[c.pos] == ']' {
		c.pos++
		c.depth--
		return nil
	}
	for {
		// An array applies the rest of the path to every element.
		if err := c.value(ex); err != nil {
			return err
		}
		c.space()
		if c.pos >= len(c.data) {
			return c.errorf("unterminated array")
		}
		if c.data[c.pos] == ',' {
			c.pos++
			continue
		}
		if c.data[c.pos] != ']' {
			return c.errorf("expected ',' or ']' in an array")
		}
		c.pos++
		c.depth--
		return nil
	}
}

// plain marks the bytes a string can hold that need no attention: printable ASCII other than
// the quote and the backslash.
var plain = func() (t [256]bool) {
	for b := 0x20; b < 0x80; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// special8 marks the bytes of the 8 in w (little-endian) that a string scan must stop at — a
// byte under 0x20, a '"' or '\\', a byte with its top bit set — by the bit tricks of "Bit
// Twiddling Hacks": the top bit of each such byte is set. A borrow can also mark a byte above a
// marked one, so the lowest mark is exact, and so is whether there is any.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	control := w - ones*0x20
	return (control | (quote-ones)&^quote | (backslash-ones)&^backslash | w) & highs
}

// string reads a string literal, which must be UTF-8 and pair the surrogates of its escapes,
// its canonical form going to the output. It returns the string unescaped, for a member name
// (name set): a slice of the input, or of c.names when it had escapes.
func (c *canonicalizer) string(name bool) ([]byte, error) {
	d := c.data
	start := c.pos + 1
	i := start
	c.escapedName = false
	for {
		// Eight bytes at a time, to the first that needs attention; byte by byte near the end.
		for i+8 <= len(d) {
			if m := special8(binary.LittleEndian.Uint64(d[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			c.pos = i
			return nil, c.errorf("unterminated string")
		}
		switch b := d[i]; {
		case b == '"':
			// Without escapes the input is canonical as it stands: RFC 8785 escapes only
			// what JSON requires escaped.
			c.pos = i + 1
			return d[start:i], nil
		case b == '\\':
			c.pos = start - 1
			c.flush()
			c.pos = i
			return c.escaped(start, name)
		case b < 0x20:
			c.pos = i
			return nil, c.errorf("control character in a string")
		default:
			if r, n := utf8.DecodeRune(d[i:]); r == utf8.RuneError && n == 1 {
				c.pos = i
				return nil, c.errorf("invalid UTF-8 in a string")
			} else {
				i += n
			}
		}
	}
}

// escaped writes the canonical form of a string that started at data[start] and has an escape at
// c.pos; the run of input before the string has been flushed.
func (c *canonicalizer) escaped(start int, name bool) ([]byte, error) {
	d := c.data
	c.out = append(c.out, d[start-1:c.pos]...)
	unescaped := len(c.names)
	if name {
		c.names = append(c.names, d[start:c.pos]...)
	}
	for c.pos < len(d) {
		b := d[c.pos]
		switch {
		case b == '"':
			c.pos++
			c.run = c.pos
			c.out = append(c.out, '"')
			if name {
				c.escapedName = true
				return c.names[unescaped:], nil
			}
			return nil, nil
		case b < 0x20:
			return nil, c.errorf("control character in a string")
		case plain[b]:
			j := c.pos + 1
			for j < len(d) && plain[d[j]] {
				j++
			}
			c.out = append(c.out, d[c.pos:j]...)
			if name {
				c.names = append(c.names, d[c.pos:j]...)
			}
			c.pos = j
			continue
		case b >= 0x80:
			r, n := utf8.DecodeRune(d[c.pos:])
			if r == utf8.RuneError && n == 1 {
				return nil, c.errorf("invalid UTF-8 in a string")
			}
			c.out = append(c.out, d[c.pos:c.pos+n]...)
			if name {
				c.names = append(c.names, d[c.pos:c.pos+n]...)
			}
			c.pos += n
			continue
		}
		c.pos++ // backslash
		if c.pos >= len(d) {
			break
		}
		var r rune
		switch e := d[c.pos]; e {
		case '"', '\\', '/':
			r = rune(e)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			c.pos++
			var err error
			if r, err = c.hex4(); err != nil {
				return nil, err
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if !bytes.HasPrefix(d[c.pos:], []byte(`\u`)) {
					return nil, c.errorf("unpaired surrogate \\u%04x", r)
				}
				c.pos += 2
				r2, err := c.hex4()
				if err != nil {
					return nil, err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return nil, c.errorf("unpaired surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
			case utf16.IsSurrogate(r):
				return nil, c.errorf("unpaired surrogate \\u%04x", r)
			}
			c.pos-- // hex4 left pos after the escape; the common step below undoes this
		default:
			return nil, c.errorf("invalid escape \\%c", e)
		}
		c.pos++
		c.out = appendRune(c.out, r)
		if name {
			c.names = utf8.AppendRune(c.names, r)
		}
	}
	return nil, c.errorf("unterminated string")
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

// appendRune appends r as it stands in an RFC 8785 string: the two-character escapes for \b
// \t \n \f \r " and \, \u00xx (lower-case hex) for the other control characters, every other
// character as itself.
func appendRune(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	switch r {
	case '"', '\\':
		return append(out, '\\', byte(r))
	case '\b':
		return append(out, '\\', 'b')
	case '\t':
		return append(out, '\\', 't')
	case '\n':
		return append(out, '\\', 'n')
	case '\f':
		return append(out, '\\', 'f')
	case '\r':
		return append(out, '\\', 'r')
	}
	if r < 0x20 {
		return append(out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	}
	return utf8.AppendRune(out, r)
}

// Bounds of the fast path of number: at most 15 significant digits, which every float64 in its
// normal range carries exactly, and a value well inside that range (1e-307 to 1e308).
const (
	exactDigits = 15
	minPoint    = -306
	maxPoint    = 308
)

// number reads a number per the JSON grammar and appends it as ECMAScript prints the float64 it
// denotes; a number the float64 does not carry exactly is refused (I-JSON).
//
// A number of at most 15 significant digits within the float64's normal range is exact, and its
// digits are the shortest that round-trip: it is printed from its own digits, without a
// float64. The rest — more digits, extreme exponents — go through strconv (appendExact).
func (c *canonicalizer) number() error {
	d := c.data
	i := c.pos
	neg := d[i] == '-'
	if neg {
		i++
	}
	var (
		mant   uint64 // the significant digits; value = mant × 10^exp
		digits int    // in mant
		exp    int
		slow   bool // more digits than mant holds
		// plain: no exponent, and no fraction ending in 0, so that a number in ECMAScript's
		// fixed range is written as it prints.
		plain = true
	)
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for ; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
			if digits == 19 {
				slow = true
				continue
			}
			mant = mant*10 + uint64(d[i]-'0')
			digits++
		}
	default:
		c.pos = i
		return c.errorf("invalid number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		first := i
		for ; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
			exp--
			switch {
			case mant == 0 && d[i] == '0': // a leading zero
			case digits == 19:
				slow = true
			default:
				mant = mant*10 + uint64(d[i]-'0')
				digits++
			}
		}
		if i == first {
			c.pos = i
			return c.errorf("invalid number")
		}
		plain = d[i-1] != '0'
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		plain = false
		i++
		eneg := false
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			eneg = d[i] == '-'
			i++
		}
		first := i
		e := 0
		for ; i < len(d) && '0' <= d[i] && d[i] <= '9'; i++ {
			if e < 1e6 {
				e = e*10 + int(d[i]-'0')
			} else {
				slow = true
			}
		}
		if i == first {
			c.pos = i
			return c.errorf("invalid number")
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	start := c.pos
	text := d[start:i]
	for mant != 0 && mant%10 == 0 {
		mant /= 10
		digits--
		exp++
	}
	if n := exp + digits; plain && mant != 0 && !slow && digits <= exactDigits && -6 < n && n <= 21 {
		c.pos = i // canonical as it stands: ECMAScript prints it the same
		return nil
	}
	var buf [32]byte
	canon := buf[:0]
	switch {
	case mant == 0:
		canon = append(canon, '0') // zero, minus zero, 0.0e-9: all print as 0
	case slow || digits > exactDigits || exp+digits < minPoint || exp+digits > maxPoint:
		var err error
		if canon, err = appendExact(canon, string(text)); err != nil {
			c.pos = i
			return err
		}
	default:
		if neg {
			canon = append(canon, '-')
		}
		var digitBuf [20]byte
		canon = appendES6Digits(canon, strconv.AppendUint(digitBuf[:0], mant, 10), exp)
	}
	if string(canon) != string(text) { // most numbers are written as ECMAScript prints them
		c.flush()
		c.out = append(c.out, canon...)
		c.run = i
	}
	c.pos = i
	return nil
}

// appendES6Digits appends the positive number digits × 10^exp, where digits are the shortest
// that round-trip its float64, as ECMAScript's Number.prototype.toString prints it (RFC 8785
// adopts it): in fixed notation from 1e-6 up to 1e21, otherwise in exponent notation ("1e+21",
// "1.5e-7").
func appendES6Digits(out, digits []byte, exp int) []byte {
	k := len(digits)
	n := exp + k // the value is 0.digits × 10^n
	switch {
	case k <= n && n <= 21:
		out = append(out, digits...)
		for range n - k {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, digits[:n]...)
		out = append(out, '.')
		out = append(out, digits[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for range -n {
			out = append(out, '0')
		}
		out = append(out, digits...)
	default:
		out = append(out, digits[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, digits[1:]...)
		}
		out = append(out, 'e')
		if n-1 < 0 {
			out = append(out, '-')
		} else {
			out = append(out, '+')
		}
		out = strconv.AppendInt(out, int64(abs(n-1)), 10)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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

// appendES6Number appends f as ECMAScript's Number.prototype.toString prints it; minus zero is
// "0".
func appendES6Number(out []byte, f float64) []byte {
	if f == 0 {
		return append(out, '0')
	}
	if f < 0 {
		out = append(out, '-')
	}
	s := strconv.AppendFloat(nil, math.Abs(f), 'e', -1, 64) // 1.5e-07, 1e+21
	e := bytes.IndexByte(s, 'e')
	exp, _ := strconv.Atoi(string(s[e+1:]))
	digits := append(s[:1:1], s[min(2, e):e]...) // without the point
	return appendES6Digits(out, digits, exp-len(digits)+1)
}
