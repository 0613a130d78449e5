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
// The reading position is passed from function to function (i in, the position after what was
// read out) rather than kept in the struct, so that the scanning loops hold it in a register.
//
// Its buffers are kept between documents (canonicalizers are pooled), so a request's fingerprint
// allocates nothing for the canonical form.
type canonicalizer struct {
	data  []byte
	depth int
	// run is where the input not yet copied to out starts: data[run:i], up to the reading
	// position i, is canonical as it stands and goes to out as it is (flush).
	run int
	out []byte
	// members holds the members of the objects open at the reading position, innermost last.
	members []member
	// names holds the unescaped names that had escapes in the input; other names are slices of
	// data.
	names []byte
	// scratch and sorted serve reorder.
	scratch []byte
	sorted  sorted
	// Fingerprint's hash, the parts it hashes before the body, and the sum.
	hash   hash.Hash
	prefix []byte
	sum    [32]byte
}

// sorted is an object's members as reorder sorts them: its entries in order, and where each
// member starts in out, by its index, with where the last one ends after them. They are looked
// up in one place, so that moveSpans takes few enough arguments to keep them all in registers.
type sorted struct {
	order  [32]uint64
	starts [33]int
}

// member is an object member written to out, waiting for its object to close. It holds no
// pointers, so that recording one costs no write barrier.
type member struct {
	key     uint64 // sortKey of the name
	name    int    // the unescaped name: data[name:name+size], or c.names[...] if escaped
	start   int    // its `"name":value` in out; it ends where the next starts, or at the brace
	size    int32
	escaped bool // the name is in c.names
}

// maxPooledBuffer keeps the pool from holding on to the buffers of a rare huge document.
const maxPooledBuffer = 64 << 10

var canonicalizers = sync.Pool{New: func() any { return new(canonicalizer) }}

func getCanonicalizer() *canonicalizer { return canonicalizers.Get().(*canonicalizer) }

func (c *canonicalizer) release() {
	if cap(c.out) > maxPooledBuffer || cap(c.scratch) > maxPooledBuffer || cap(c.names) > maxPooledBuffer ||
		cap(c.members) > maxPooledBuffer/64 {
		return
	}
	c.data, c.names, c.members = nil, c.names[:0], c.members[:0]
	canonicalizers.Put(c)
}

// canonicalize writes the canonical form of body, without the members ex excludes, to c.out and
// returns it; it is valid until c is released.
func (c *canonicalizer) canonicalize(body []byte, ex *excludeNode) ([]byte, error) {
	if len(body) > math.MaxInt32 {
		return nil, fmt.Errorf("%w: a document of %d bytes is over the %d the canonicaliser takes", ErrNotIJSON, len(body), math.MaxInt32)
	}
	c.data, c.depth, c.run = body, 0, 0
	c.out = c.out[:0]
	c.names = c.names[:0]
	c.members = c.members[:0]
	i, err := c.value(0, ex)
	if err != nil {
		return nil, err
	}
	if i = c.space(body, i); i != len(body) {
		return nil, errorAt(i, "data after the JSON value")
	}
	c.flush(i)
	return c.out, nil
}

// errorAt is ErrNotIJSON for what was found at byte i.
func errorAt(i int, format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d", ErrNotIJSON, fmt.Sprintf(format, args...), i)
}

// flush copies the pending run of input, up to i, to out.
func (c *canonicalizer) flush(i int) {
	appendInPlace(&c.out, c.data[c.run:i])
	c.run = i
}

// appendInPlace appends b to *s. When *s has room, only its length is written: the buffers of a
// canonicalizer, which lives on the heap, would otherwise have their pointer written again by
// every append, and each such write costs a write barrier while the collector marks.
func appendInPlace(s *[]byte, b []byte) {
	n := len(*s)
	if len(b) <= cap(*s)-n {
		*s = (*s)[:n+len(b)]
		copy((*s)[n:], b)
		return
	}
	*s = append(*s, b...)
}

// outLen is the length of out once the pending run up to i is copied: where what comes next
// will be.
func (c *canonicalizer) outLen(i int) int { return len(c.out) + i - c.run }

// space returns the position after the whitespace at d[i] (d is c.data, passed along so that it
// stays in registers), leaving it out of the output. It is small enough to inline: a compact
// document has no whitespace.
func (c *canonicalizer) space(d []byte, i int) int {
	if uint(i) < uint(len(d)) && d[i] <= ' ' {
		return c.skipSpace(i)
	}
	return i
}

//go:noinline
func (c *canonicalizer) skipSpace(i int) int {
	c.flush(i)
	d := c.data
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	c.run = i
	return i
}

// value reads the value at i (after any whitespace), its canonical form going to the output. ex
// holds the exclude paths that apply inside it.
func (c *canonicalizer) value(i int, ex *excludeNode) (int, error) {
	d := c.data
	if i = c.space(d, i); i >= len(d) {
		return i, errorAt(i, "unexpected end of JSON")
	}
	switch b := d[i]; {
	case b == '"':
		_, _, i, err := c.string(i, false)
		return i, err
	case b == '-' || b-'0' <= 9:
		return c.number(i)
	case b == '{':
		return c.object(i, ex)
	case b == '[':
		return c.array(i, ex)
	}
	// A literal is canonical as it stands.
	switch rest := d[i:]; {
	case len(rest) >= 4 && string(rest[:4]) == "null":
		return i + 4, nil
	case len(rest) >= 4 && string(rest[:4]) == "true":
		return i + 4, nil
	case len(rest) >= 5 && string(rest[:5]) == "false":
		return i + 5, nil
	}
	return i, errorAt(i, "unexpected %q", d[i])
}

func (c *canonicalizer) enter(i int) error {
	if c.depth++; c.depth > maxDepth {
		return errorAt(i, "nesting deeper than %d", maxDepth)
	}
	return nil
}

func (c *canonicalizer) object(i int, ex *excludeNode) (int, error) {
	if err := c.enter(i); err != nil {
		return i, err
	}
	d := c.data
	open := c.outLen(i)
	if i = c.space(d, i+1); uint(i) < uint(len(d)) && d[i] == '}' {
		c.depth--
		return i + 1, nil
	}
	base := len(c.members)
	// The loop keeps little state of its own, so that the common path spills none: each member
	// is recorded as its name is read, and whether they came in order is seen once the object
	// closes. The checks for the punctuation between tokens look for the expected byte first;
	// only when it is not there is whitespace skipped (space) and the byte looked for again: a
	// compact document has none.
	for {
		if uint(i) >= uint(len(d)) || d[i] != '"' {
			if i = c.space(d, i); uint(i) >= uint(len(d)) || d[i] != '"' {
				return i, errorAt(i, "expected a member name")
			}
		}
		// The name. Plain ASCII, the common case, is read here a word at a time and keyed from
		// its first word, and the member recorded (its fields written in place: appending a
		// member literal builds it on the stack and copies it); the rest goes through memberName.
		start := c.outLen(i)
		end := -1 // the closing quote of a name read here
		if j := i + 1; j+8 <= len(d) {
			w := binary.LittleEndian.Uint64(d[j : j+8])
			if s := special8(w); s != 0 {
				if k := bits.TrailingZeros64(s) / 8; byte(w>>(8*k)) == '"' {
					w &= 1<<(8*k) - 1
					end = j + k
				}
			} else if k := plainEnd(d, j+8); uint(k) < uint(len(d)) && d[k] == '"' {
				end = k
			}
			if end >= 0 {
				n := len(c.members)
				if n == cap(c.members) {
					c.growMembers()
				}
				ms := c.members[:n+1]
				c.members = ms
				m := &ms[n]
				m.key, m.name, m.start, m.size, m.escaped = bits.ReverseBytes64(w), j, start, int32(end-j), false
				i = end + 1
			}
		}
		if end < 0 {
			var err error
			if i, err = c.memberName(i, start); err != nil {
				return i, err
			}
		}
		var sub *excludeNode
		if ex != nil {
			sub = ex.member(c, &c.members[len(c.members)-1])
		}
		if uint(i) >= uint(len(d)) || d[i] != ':' {
			if i = c.space(d, i); uint(i) >= uint(len(d)) || d[i] != ':' {
				return i, errorAt(i, "expected ':' after a member name")
			}
		}
		// The value. Most are strings and numbers: they are read without value's dispatch, and
		// a string of plain ASCII, a short integer or a literal, canonical as it stands, without
		// a call.
		var b byte
		if i++; uint(i) < uint(len(d)) {
			if b = d[i]; b <= ' ' {
				if i = c.space(d, i); uint(i) < uint(len(d)) {
					b = d[i]
				}
			}
		}
		// Only the calls can fail: each checks its error, so that the common paths join
		// without one.
		switch {
		case b == '"':
			if k := plainEnd(d, i+1); uint(k) < uint(len(d)) && d[k] == '"' {
				i = k + 1
			} else {
				var err error
				if _, _, i, err = c.string(i, false); err != nil {
					return i, err
				}
			}
		case b-'1' <= 8:
			k := i + 1
			for uint(k) < uint(len(d)) && d[k]-'0' <= 9 {
				k++
			}
			if k-i <= exactDigits && (k == len(d) || d[k] != '.' && d[k]|0x20 != 'e') {
				i = k
			} else {
				var err error
				if i, err = c.number(i); err != nil {
					return i, err
				}
			}
		case (b == 'n' || b == 't') && i+4 <= len(d) && (string(d[i:i+4]) == "null" || string(d[i:i+4]) == "true"):
			i += 4 // canonical as it stands
		case b == '-' || b == '0':
			var err error
			if i, err = c.number(i); err != nil {
				return i, err
			}
		case b == '{':
			var err error
			if i, err = c.object(i, sub); err != nil {
				return i, err
			}
		case b == '[':
			var err error
			if i, err = c.array(i, sub); err != nil {
				return i, err
			}
		default:
			var err error
			if i, err = c.value(i, sub); err != nil {
				return i, err
			}
		}
		if sub != nil && sub.drop {
			i = c.drop(open, i)
		}
		if uint(i) < uint(len(d)) && d[i] == ',' {
			i++
			continue
		}
		if uint(i) >= uint(len(d)) || d[i] != '}' {
			if i = c.space(d, i); uint(i) >= uint(len(d)) {
				return i, errorAt(i, "unterminated object")
			}
			if d[i] == ',' {
				i++
				continue
			}
			if d[i] != '}' {
				return i, errorAt(i, "expected ',' or '}' in an object")
			}
		}
		break
	}
	// A member ends where the next one starts, before the comma, and the last one at the brace.
	// (An excluded member started where the one after it starts, and the brace is where it
	// started if it was the last.)
	ms := c.members[base:]
	closing := c.outLen(i)
	for k := 1; k < len(ms); k++ {
		if p, m := &ms[k-1], &ms[k]; p.key >= m.key && (p.key > m.key || c.compare(p, m) >= 0) {
			c.flush(i + 1)
			if err := c.reorder(open, closing, ms); err != nil {
				return i, err
			}
			break
		}
	}
	c.members = c.members[:base]
	c.depth--
	return i + 1, nil
}

// growMembers makes room for a member; it is kept out of the member loop, which only checks for
// room, as it is rarely needed once the canonicalizer's buffers have grown.
//
//go:noinline
func (c *canonicalizer) growMembers() { c.members = slices.Grow(c.members, 1) }

// drop leaves out of the output the last member recorded, of the object opened at out[open],
// which ends at i, with the comma before it, or after it if no member is written before it;
// returns the position to read on from.
//
//go:noinline
func (c *canonicalizer) drop(open, i int) int {
	m := &c.members[len(c.members)-1]
	c.flush(i)
	if m.start > open+1 {
		c.out = c.out[:m.start-1]
		return i
	}
	c.out = c.out[:m.start]
	d := c.data
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	if c.run = i; i < len(d) && d[i] == ',' {
		c.run++
	}
	return i
}

// plainEnd returns the position of the first byte from d[i] on that a string scan must stop at,
// found a word at a time; or, if there is none, the position where less than a word of d is left.
// Either way the bytes before it are plain: a string of plain ASCII ends there if a quote is
// there; else string, which goes on byte by byte, has to read it. (The bound is written as
// len(d)-8 and the word read from d[i:], rather than i+8 <= len(d) and d[i:i+8], because the
// compiler then checks less in the loop and keeps the position in a register.)
func plainEnd(d []byte, i int) int {
	n := len(d) - 8
	for ; i <= n; i += 8 {
		if s := special8(binary.LittleEndian.Uint64(d[i:])); s != 0 {
			return i + bits.TrailingZeros64(s)/8
		}
	}
	return i
}

// reorder sorts the members of the object opened at out[open] and closed at out[closing], and
// rewrites them in that order. The brace must be in out: the members are moved with what follows
// each, the comma or the brace.
func (c *canonicalizer) reorder(open, closing int, ms []member) error {
	if len(ms) > len(c.sorted.order) {
		return c.reorderMany(open, closing, ms)
	}
	// Insertion sort of the members' keys, the last byte of each replaced by the member's
	// index: objects are small, and most names differ in the first 7 bytes the entries keep.
	// An entry that ties with another but for that byte is placed right after it (its index is
	// the larger), so ties are seen as they are placed; the names whose entries tie are put in
	// order after, if there are any. Where each member starts is noted on the way (see
	// moveSpans); the index, under 32 here, is masked so that it is not checked.
	order, starts := c.sorted.order[:len(ms)], &c.sorted.starts
	tie := false
	for i := range ms {
		starts[i&31] = ms[i].start
		k, j := ms[i].key&^0xFF|uint64(i), i
		for ; j > 0 && order[j-1] > k; j-- {
			order[j] = order[j-1]
		}
		order[j] = k
		if j > 0 && (order[j-1]^k)>>8 == 0 {
			tie = true
		}
	}
	starts[len(ms)] = closing + 1
	if tie {
		for i := 1; i < len(order); i++ {
			if (order[i-1]^order[i])>>8 == 0 {
				if err := c.sortTies(ms, order[i-1:]); err != nil {
					return err
				}
			}
		}
	}
	c.rewrite(open, closing, len(ms))
	return nil
}

// reorderMany is reorder for an object of more members than the insertion sort takes.
func (c *canonicalizer) reorderMany(open, closing int, ms []member) error {
	order := make([]uint64, len(ms))
	for i := range order {
		order[i] = uint64(i)
	}
	slices.SortFunc(order, func(a, b uint64) int { return c.compare(&ms[a], &ms[b]) })
	for i := 1; i < len(order); i++ {
		if p, m := &ms[order[i-1]], &ms[order[i]]; p.key == m.key && c.compare(p, m) == 0 {
			return fmt.Errorf("%w: duplicate member name %q", ErrNotIJSON, c.nameOf(m))
		}
	}
	// Each member is moved with the comma or brace after it, as in rewrite, from a copy of the
	// object.
	body := open + 1
	c.scratch = append(c.scratch[:0], c.out[body:]...)
	c.scratch[closing-body] = ','
	at := body
	for _, k := range order {
		end := closing + 1
		if k+1 < uint64(len(ms)) {
			end = ms[k+1].start
		}
		at += copy(c.out[at:], c.scratch[ms[k].start-body:end-body])
	}
	c.out[closing] = '}'
	return nil
}

// sortTies puts in order by their names the entries at the start of order (key<<8|index, sorted)
// whose keys tie but for their last byte, and finds a duplicate name among them.
func (c *canonicalizer) sortTies(ms []member, order []uint64) error {
	n := 1
	for n < len(order) && (order[0]^order[n])>>8 == 0 {
		n++
	}
	for i := 1; i < n; i++ {
		k, j := order[i], i
		for ; j > 0; j-- {
			cmp := c.compare(&ms[order[j-1]&0xFF], &ms[k&0xFF])
			if cmp == 0 {
				return fmt.Errorf("%w: duplicate member name %q", ErrNotIJSON, c.nameOf(&ms[k&0xFF]))
			}
			if cmp < 0 {
				break
			}
			order[j] = order[j-1]
		}
		order[j] = k
	}
	return nil
}

// rewrite writes the members of the object opened at out[open] and closed at out[closing] in the
// order of reorder's entries, after a copy of what precedes them: to scratch, which then takes
// the place of out, when that is the shorter copy (the object is most of the document so far);
// else back into out from a copy of the object, at the same place, in scratch. The members are
// moved with the comma or brace after each, so the brace is made a comma first, and the last
// byte written made the brace. Both buffers are given a chunk of room past the object, for
// moveSpans.
func (c *canonicalizer) rewrite(open, closing, members int) {
	body, n := open+1, len(c.out)
	if cap(c.out)-n < chunk {
		c.out = slices.Grow(c.out, chunk)
	}
	if cap(c.scratch) < n+chunk {
		c.scratch = make([]byte, 0, max(n+chunk, 2*cap(c.scratch)))
	}
	out, scratch := c.out[:cap(c.out)], c.scratch[:cap(c.scratch)]
	out[closing] = ','
	if body < n-body {
		copy(scratch, out[:body])
		moveSpans(scratch, out, body, members, &c.sorted)
		c.out, c.scratch = scratch[:n], c.out
	} else {
		copy(scratch[body:], out[body:n])
		// The members take the room they took, so they are written within out, which is not
		// assigned (see appendInPlace).
		moveSpans(out, scratch, body, members, &c.sorted)
	}
	c.out[closing] = '}'
}

// chunk is the unit moveSpans copies in.
const chunk = 32

// moveSpans copies the members of src of the first n entries of t.order, in order, one after the
// other to dst from at on. Each member is moved with the comma or brace after it: the member of
// entry o starts at t.starts[o&31] and ends where the next one starts, at t.starts[o&31+1], the
// last one after the brace. (An excluded member is empty.)
//
// Most members are short: they are copied a chunk or two at a time, without a call (which would
// have the loop keep its state on the stack), and so the last chunk may copy past a member's end,
// up to chunk-1 bytes: what follows in dst overwrites them, and both src and dst must have that
// room after the object. One chunk is tested for first, as most members fit in one: on that path
// the loop keeps its state in registers.
func moveSpans(dst, src []byte, at, n int, t *sorted) {
	for _, o := range t.order[:n] {
		s, e := t.starts[o&31], t.starts[o&31+1]
		if e-s <= chunk {
			copyChunk((*[chunk]byte)(dst[at:at+chunk]), (*[chunk]byte)(src[s:s+chunk]))
		} else if e-s <= 2*chunk {
			copyChunk((*[chunk]byte)(dst[at:at+chunk]), (*[chunk]byte)(src[s:s+chunk]))
			copyChunk((*[chunk]byte)(dst[at+chunk:at+2*chunk]), (*[chunk]byte)(src[s+chunk:s+2*chunk]))
		} else {
			copy(dst[at:], src[s:e])
		}
		at += e - s
	}
}

// copyChunk copies a chunk in moves of 16 bytes: one move of 32 would be a call to memmove.
func copyChunk(dst, src *[chunk]byte) {
	*(*[16]byte)(dst[:16]) = *(*[16]byte)(src[:16])
	*(*[16]byte)(dst[16:]) = *(*[16]byte)(src[16:])
}

// memberName reads the member name at i that the common path of object did not, and records the
// member, which starts at out[start]: where its name is (in data, or in c.names if escaped), its
// length and sort key; returns the position after it.
//
//go:noinline
func (c *canonicalizer) memberName(i, start int) (next int, err error) {
	name, escaped, next, err := c.string(i, true)
	if err != nil {
		return next, err
	}
	at := i + 1
	if escaped {
		at = len(c.names) - len(name)
	}
	c.members = append(c.members, member{key: sortKey(name), name: at, start: start, size: int32(len(name)), escaped: escaped})
	return next, nil
}

// name is the unescaped member name at data[at:at+size], or at c.names[at:at+size] if escaped.
func (c *canonicalizer) name(at, size int, escaped bool) []byte {
	if escaped {
		return c.names[at : at+size]
	}
	return c.data[at : at+size]
}

// nameOf is m's name, unescaped.
func (c *canonicalizer) nameOf(m *member) []byte { return c.name(m.name, int(m.size), m.escaped) }

// compare orders two members by their names, as RFC 8785 sorts them; most are told apart by
// their keys alone.
func (c *canonicalizer) compare(a, b *member) int {
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	return compareUTF16(c.nameOf(a), c.nameOf(b))
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

func (c *canonicalizer) array(i int, ex *excludeNode) (int, error) {
	if err := c.enter(i); err != nil {
		return i, err
	}
	d := c.data
	if i = c.space(d, i+1); uint(i) < uint(len(d)) && d[i] == ']' {
		c.depth--
		return i + 1, nil
	}
	for {
		// An array applies the rest of the path to every element. As in an object, a string
		// of plain ASCII is read without a call, and an object without value's dispatch.
		if uint(i) < uint(len(d)) && d[i] == '"' {
			if k := plainEnd(d, i+1); uint(k) < uint(len(d)) && d[k] == '"' {
				i = k + 1
			} else {
				var err error
				if _, _, i, err = c.string(i, false); err != nil {
					return i, err
				}
			}
		} else if uint(i) < uint(len(d)) && d[i] == '{' {
			var err error
			if i, err = c.object(i, ex); err != nil {
				return i, err
			}
		} else {
			var err error
			if i, err = c.value(i, ex); err != nil {
				return i, err
			}
		}
		if i = c.space(d, i); i >= len(d) {
			return i, errorAt(i, "unterminated array")
		}
		if d[i] == ',' {
			i++
			continue
		}
		if d[i] != ']' {
			return i, errorAt(i, "expected ',' or ']' in an array")
		}
		c.depth--
		return i + 1, nil
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
// Twiddling Hacks": the top bit of each such byte is set. With bit 1 flipped, the bytes under
// 0x20 and the quote (which becomes 0x20) are the bytes under 0x21, so that one subtraction
// finds them all; the subtraction that finds the backslash also marks every byte from 0x80 but
// 0xDC, which the other marks (flipped, it is 0xDE): no third term is needed for the top bit.
// A borrow can also mark a byte above a marked one, so the lowest mark is exact, and so is
// whether there is any.
func special8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	controlOrQuote := (w ^ ones*0x02) - ones*0x21
	backslash := (w ^ ones*'\\') - ones
	return (controlOrQuote | backslash) & highs
}

// string reads the string literal at i, which must be UTF-8 and pair the surrogates of its
// escapes, its canonical form going to the output, and returns the position after it. For a
// member name (name set) it also returns the string unescaped: a slice of the input, or of
// c.names when it had escapes (escaped).
func (c *canonicalizer) string(i int, name bool) (s []byte, escaped bool, next int, err error) {
	d := c.data
	j := i + 1
	for {
		// Eight bytes at a time to the first that needs attention; byte by byte near the end.
		if j <= len(d)-8 {
			m := special8(binary.LittleEndian.Uint64(d[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) / 8
		} else {
			for j < len(d) && plain[d[j]] {
				j++
			}
			if j >= len(d) {
				return nil, false, j, errorAt(j, "unterminated string")
			}
		}
		switch b := d[j]; {
		case b == '"':
			// Without escapes the input is canonical as it stands: RFC 8785 escapes only
			// what JSON requires escaped.
			return d[i+1 : j], false, j + 1, nil
		case b == '\\':
			return c.escaped(i, j, name)
		case b < 0x20:
			return nil, false, j, errorAt(j, "control character in a string")
		case b-0xC2 <= 0xDF-0xC2 && j+1 < len(d) && d[j+1]&0xC0 == 0x80:
			// A character of two bytes (Latin, Greek, Cyrillic and more), checked without
			// a call: a lead byte that is not overlong and a continuation byte.
			j += 2
			continue
		}
		r, n := utf8.DecodeRune(d[j:])
		if r == utf8.RuneError && n == 1 {
			return nil, false, j, errorAt(j, "invalid UTF-8 in a string")
		}
		j += n
	}
}

// escaped reads the string that starts at data[start] and has its first escape at i, and writes
// its canonical form: what its escapes stand for to out, the rest left in the run of input; for
// string.
func (c *canonicalizer) escaped(start, i int, name bool) (s []byte, escaped bool, next int, err error) {
	d := c.data
	unescaped := len(c.names)
	if name {
		appendInPlace(&c.names, d[start+1:i])
	}
	// What needs no rewriting — plain bytes, other characters, the closing quote — is left in
	// the pending run of input, as outside strings: only an escape ends the run, and the run
	// after it starts after it.
	for i < len(d) {
		b := d[i]
		switch {
		case b == '"':
			if name {
				return c.names[unescaped:], true, i + 1, nil
			}
			return nil, false, i + 1, nil
		case b < 0x20:
			return nil, false, i, errorAt(i, "control character in a string")
		case plain[b]:
			j := plainEnd(d, i+1)
			for j < len(d) && plain[d[j]] {
				j++
			}
			if name {
				appendInPlace(&c.names, d[i:j])
			}
			i = j
			continue
		case b >= 0x80:
			r, n := utf8.DecodeRune(d[i:])
			if r == utf8.RuneError && n == 1 {
				return nil, false, i, errorAt(i, "invalid UTF-8 in a string")
			}
			if name {
				appendInPlace(&c.names, d[i:i+n])
			}
			i += n
			continue
		}
		c.flush(i)
		i++ // backslash
		if i >= len(d) {
			break
		}
		var r rune
		switch e := d[i]; e {
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
			if r, err = hex4(d, i+1); err != nil {
				return nil, false, i, err
			}
			i += 4
			switch {
			case utf16.IsSurrogate(r) && r < 0xDC00:
				if !bytes.HasPrefix(d[i+1:], []byte(`\u`)) {
					return nil, false, i + 1, errorAt(i+1, "unpaired surrogate \\u%04x", r)
				}
				r2, err := hex4(d, i+3)
				if err != nil {
					return nil, false, i + 3, err
				}
				if r2 < 0xDC00 || r2 > 0xDFFF {
					return nil, false, i + 7, errorAt(i+7, "unpaired surrogate \\u%04x", r)
				}
				r = utf16.DecodeRune(r, r2)
				i += 6
			case utf16.IsSurrogate(r):
				return nil, false, i + 1, errorAt(i+1, "unpaired surrogate \\u%04x", r)
			}
		default:
			return nil, false, i, errorAt(i, "invalid escape \\%c", e)
		}
		i++ // the escape's last byte
		c.run = i
		// The character is written in the room past out's end when there is some, so that no
		// copy is called for its few bytes (see appendInPlace for why out is not assigned).
		if n := len(c.out); cap(c.out)-n >= 6 {
			c.out = c.out[:n+len(appendRune(c.out[n:n:n+6], r))]
		} else {
			var buf [8]byte
			appendInPlace(&c.out, appendRune(buf[:0], r))
		}
		if name {
			var buf [8]byte
			appendInPlace(&c.names, utf8.AppendRune(buf[:0], r))
		}
	}
	return nil, false, i, errorAt(i, "unterminated string")
}

// hexValue maps each byte to its value as a hex digit, and the bytes that are not one to 0xFF.
var hexValue = func() (t [256]byte) {
	for b := range t {
		switch {
		case '0' <= b && b <= '9':
			t[b] = byte(b - '0')
		case 'a' <= b && b <= 'f':
			t[b] = byte(b - 'a' + 10)
		case 'A' <= b && b <= 'F':
			t[b] = byte(b - 'A' + 10)
		default:
			t[b] = 0xFF
		}
	}
	return t
}()

// hex4 reads the four hex digits of a \u escape at d[i:], looked up in a table rather than
// classified one by one.
func hex4(d []byte, i int) (rune, error) {
	if i+4 > len(d) {
		return 0, errorAt(i, "short \\u escape")
	}
	h := d[i : i+4]
	a, b, c, e := hexValue[h[0]], hexValue[h[1]], hexValue[h[2]], hexValue[h[3]]
	if a|b|c|e > 0xF {
		return 0, errorAt(i, "invalid \\u escape")
	}
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(e), nil
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
func (c *canonicalizer) number(start int) (int, error) {
	d := c.data
	// The common case first: an integer of at most 15 digits, without a leading zero, is exact
	// and printed as it is written.
	i := start
	if d[i] == '-' {
		i++
	}
	end := i
	for uint(end) < uint(len(d)) && d[end]-'0' <= 9 {
		end++
	}
	if n := end - i; n > 0 && n <= exactDigits && (d[i] != '0' || n == 1) {
		if end == len(d) || d[end] != '.' && d[end]|0x20 != 'e' {
			if d[i] != '0' || i == start {
				return end, nil
			}
		} else if d[end] == '.' {
			// Then a plain fraction, also printed as it is written when its last digit is not
			// 0, it has at most 15 significant digits and, below 1, at most five zeros after
			// the point (1e-7 is printed so).
			k := end + 1
			for uint(k) < uint(len(d)) && d[k]-'0' <= 9 {
				k++
			}
			significant, zeros := n+k-end-1, 0
			if n == 1 && d[i] == '0' {
				for end+1+zeros < k && d[end+1+zeros] == '0' {
					zeros++
				}
				significant = k - end - 1 - zeros
			}
			if k > end+1 && d[k-1] != '0' && significant <= exactDigits && zeros <= 5 &&
				(k == len(d) || d[k]|0x20 != 'e') {
				return k, nil
			}
		}
	}
	i = start
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
	case uint(i) < uint(len(d)) && d[i] == '0':
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
		return i, errorAt(i, "invalid number")
	}
	if uint(i) < uint(len(d)) && d[i] == '.' {
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
			return i, errorAt(i, "invalid number")
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
			return i, errorAt(i, "invalid number")
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	text := d[start:i]
	for mant != 0 && mant%10 == 0 {
		mant /= 10
		digits--
		exp++
	}
	if n := exp + digits; plain && mant != 0 && !slow && digits <= exactDigits && -6 < n && n <= 21 {
		return i, nil // canonical as it stands: ECMAScript prints it the same
	}
	var buf [32]byte
	canon := buf[:0]
	switch {
	case mant == 0:
		canon = append(canon, '0') // zero, minus zero, 0.0e-9: all print as 0
	case slow || digits > exactDigits || exp+digits < minPoint || exp+digits > maxPoint:
		var err error
		if canon, err = appendExact(canon, string(text)); err != nil {
			return i, err
		}
	default:
		if neg {
			canon = append(canon, '-')
		}
		var digitBuf [20]byte
		canon = appendES6Digits(canon, strconv.AppendUint(digitBuf[:0], mant, 10), exp)
	}
	if string(canon) != string(text) { // most numbers are written as ECMAScript prints them
		c.flush(start)
		appendInPlace(&c.out, canon)
		c.run = i
	}
	return i, nil
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
