package idem

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCanonicalExcludeByKey: an excluded member is found by the sort key and length of its name
// before the name is read, so names that share their key, or their first 8 bytes and their
// length, must still be told apart; and escaped or non-ASCII names matched as the exclude path
// spells them.
func TestCanonicalExcludeByKey(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "same first 8 bytes and length", body: `{"abcdefghX":1,"abcdefghY":2}`, exclude: []string{"abcdefghX"},
			want: `{"abcdefghY":2}`},
		{name: "same first 8 bytes, other length", body: `{"abcdefgh":1,"abcdefghX":2}`, exclude: []string{"abcdefghXY", "abcdefg"},
			want: `{"abcdefgh":1,"abcdefghX":2}`},
		{name: "same key, other length", body: `{"abc":1,"abc\u0000":2}`, exclude: []string{"abc"},
			want: `{"abc\u0000":2}`},
		{name: "escaped name", body: `{"\u0074":1,"u":2,"\u0074\u0074\u0074\u0074\u0074\u0074\u0074\u0074x":3}`, exclude: []string{"t", "ttttttttx"},
			want: `{"u":2}`},
		{name: "non-ASCII names", body: `{"é":1,"\u00e9x":2,"e":3,"ééééx":4,"ééééy":5}`, exclude: []string{"é", "ééééx"},
			want: `{"e":3,"éx":2,"ééééy":5}`},
		{name: "nested", body: `{"m":{"abcdefghij":1,"abcdefghik":2},"abcdefghij":3}`, exclude: []string{"m.abcdefghij"},
			want: `{"abcdefghij":3,"m":{"abcdefghik":2}}`},
	})
}

// TestCanonicalMemberSlots: members are recorded in the slots of the members of the objects that
// closed before, so a member read on the common path must not keep what an escaped name left in
// its slot (its name would be looked for in the unescaped names), as the comparison of two names
// whose keys tie shows.
func TestCanonicalMemberSlots(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "escaped then plain", body: `[{"\u0061bcdefgh1":1,"z":2},{"abcdefgh2":1,"abcdefgh1":2}]`,
			want: `[{"abcdefgh1":1,"z":2},{"abcdefgh1":2,"abcdefgh2":1}]`},
		{name: "escaped then plain duplicate", body: `[{"\u0061bcdefgh1":1},{"abcdefgh1":1,"abcdefgh1":2}]`, err: ErrNotIJSON},
	})
}

// TestCanonicalPunctuation: the comma or brace after a member value is looked for first where the
// value ends, and after whitespace only when it is not there.
func TestCanonicalPunctuation(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "whitespace before a comma", body: `{"b":1 ,"a":2}`, want: `{"a":2,"b":1}`},
		{name: "whitespace before both", body: "{\"b\":\"x\"\t,\n\"a\":[]\r}", want: `{"a":[],"b":"x"}`},
		{name: "whitespace before the brace", body: `{"a":1 }`, want: `{"a":1}`},
		{name: "no comma", body: `{"a":1 "b":2}`, err: ErrNotIJSON},
		{name: "bracket for a brace", body: `{"a":1 ]`, err: ErrNotIJSON},
		{name: "end after whitespace", body: `{"a":1 `, err: ErrNotIJSON},
		{name: "end after a value", body: `{"a":1`, err: ErrNotIJSON},
		{name: "comma then the brace", body: `{"a":1 ,}`, err: ErrNotIJSON},
	})
}

// TestCanonicalStringLengths: names and string values of every length around the words they are
// scanned in, ending right at the end of the document or a few bytes before it, plain and with
// an escape or a non-ASCII character at each end.
func TestCanonicalStringLengths(t *testing.T) {
	t.Parallel()
	for n := range 26 {
		s := strings.Repeat("x", n)
		for _, tc := range []struct{ body, want string }{
			{`"` + s + `"`, `"` + s + `"`},
			{`{"` + s + `":"` + s + `"}`, `{"` + s + `":"` + s + `"}`},
			{`{"z":0,"` + s + `":"` + s + `"}`, `{"` + s + `":"` + s + `","z":0}`},
			{`["` + s + `\u0041"]`, `["` + s + `A"]`},
			{`["\u0041` + s + `"]`, `["A` + s + `"]`},
			{`["` + s + `é"]`, `["` + s + `é"]`},
			{`{"` + s + `\n":1}`, `{"` + s + `\n":1}`},
		} {
			got, err := CanonicalJSON([]byte(tc.body), nil)
			if err != nil || string(got) != tc.want {
				t.Errorf("CanonicalJSON(%s) = %s, %v; want %s", tc.body, got, err, tc.want)
			}
			if _, err := CanonicalJSON([]byte(tc.body[:len(tc.body)-1]), nil); err == nil {
				t.Errorf("CanonicalJSON(%s) accepts a truncated document", tc.body[:len(tc.body)-1])
			}
		}
		for _, bad := range []string{`"` + s, `"` + s + "\x01\"", `"` + s + "\xff\"", `{"` + s + `":1,"` + s + `":2}`} {
			if _, err := CanonicalJSON([]byte(bad), nil); err == nil {
				t.Errorf("CanonicalJSON(%q) accepts it", bad)
			}
		}
	}
}

// TestCanonicalArrays: the elements of an array that are strings of plain ASCII or objects are
// read without value's dispatch; strings that need attention, other values, and exclude paths
// through the array still go their way.
func TestCanonicalArrays(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "strings", body: `["abcdefghijkl","","a\u0041","\u00e9t\u00e9","Bâtiment","\/"]`,
			want: `["abcdefghijkl","","aA","été","Bâtiment","/"]`},
		{name: "objects", body: `[{"b":1,"a":[{"d":"x","c":"y"}]},{},{"t":1,"u":2}]`, exclude: []string{"t", "a.c"},
			want: `[{"a":[{"d":"x"}],"b":1},{},{"u":2}]`},
		{name: "other values", body: `[ 1.50 , true,null,false,-0,[ ],[["z"]],"q" ]`, want: `[1.5,true,null,false,0,[],[["z"]],"q"]`},
		{name: "control character", body: "[\"ab\x01\"]", err: ErrNotIJSON},
		{name: "invalid UTF-8", body: "[\"abcdefgh\xff\"]", err: ErrNotIJSON},
		{name: "unterminated string", body: `["abcdefghij`, err: ErrNotIJSON},
		{name: "unterminated array", body: `["a"`, err: ErrNotIJSON},
		{name: "no comma", body: `["a" "b"]`, err: ErrNotIJSON},
		{name: "bad object", body: `[{"a":1,"a":2}]`, err: ErrNotIJSON},
	})
}

// TestCanonicalHexEscapes: the four digits of a \u escape, in either case, looked up in a table.
func TestCanonicalHexEscapes(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "lower and upper case", body: `"\u00e9\u00E9\u004a\uD83D\uDE00\u0009\u001F"`, want: `"ééJ😀\t\u001f"`},
		{name: "every digit", body: `"\u0123\u4567\u89aB\uCdEf"`, want: "\"\u0123\u4567\u89ab\ucdef\""},
		{name: "a letter past f", body: `"\u00g0"`, err: ErrNotIJSON},
		{name: "a letter past F", body: `"\u00G0"`, err: ErrNotIJSON},
		{name: "a sign", body: `"\u+123"`, err: ErrNotIJSON},
		{name: "short", body: `"\u00e`, err: ErrNotIJSON},
		{name: "byte after 9", body: `"\u00:0"`, err: ErrNotIJSON},
	})
}

// TestSpecial8Pairs: special8 against the plain table on every pair of bytes next to each other
// at every place in a word of plain bytes, and on every byte alone: a borrow from one byte into
// the next must not hide or move the first mark.
func TestSpecial8Pairs(t *testing.T) {
	t.Parallel()
	first := func(b []byte) int {
		for i, x := range b {
			if !plain[x] {
				return i
			}
		}
		return len(b)
	}
	check := func(b *[8]byte) {
		if got, want := bits.TrailingZeros64(special8(binary.LittleEndian.Uint64(b[:])))/8, first(b[:]); got != want {
			t.Fatalf("special8(%q) marks byte %d first, want %d", b, got, want)
		}
	}
	for at := range 8 {
		for x := range 256 {
			b := [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			b[at] = byte(x)
			check(&b)
			if at == 7 {
				continue
			}
			for y := range 256 {
				b[at+1] = byte(y)
				check(&b)
			}
		}
	}
}

// TestCanonicalEscapeRoom: a character written for an escape goes in the room past the output's
// end when there is some, and is appended when there is none (a new canonicalizer has none); what
// needs no rewriting, before, between and after the escapes, stays in the run of input, also
// in a name, which is kept unescaped besides.
func TestCanonicalEscapeRoom(t *testing.T) {
	t.Parallel()
	c := new(canonicalizer)
	for _, tc := range []struct{ body, want string }{
		{`"\n"`, `"\n"`},
		{`"\u00e9"`, `"é"`},
		{`"\u0041\u0042\t\u001f"`, `"AB\t\u001f"`},
		{`{"b":"x\u00e9y\u00e9z","\u0061\u00e9":"ü\/","a":1}`, `{"a":1,"aé":"ü/","b":"xéyéz"}`},
		{`["Grinder \u00e9dition limit\u00e9e", "Bâtiment \"B\"",  "\ud83d\ude00!"]`, `["Grinder édition limitée","Bâtiment \"B\"","😀!"]`},
	} {
		for range 2 {
			got, err := c.canonicalize([]byte(tc.body), nil)
			if err != nil || string(got) != tc.want {
				t.Errorf("canonicalize(%s) = %s, %v; want %s", tc.body, got, err, tc.want)
			}
		}
		c.out = nil
	}
}

// TestCanonicalTwoByteUTF8: a character of two bytes is checked in the string scan itself, and
// must be accepted and refused as utf8 does, at every place around the words the scan reads
// and at the end of the document; other characters still go through utf8.
func TestCanonicalTwoByteUTF8(t *testing.T) {
	t.Parallel()
	for n := range 18 {
		s := strings.Repeat("x", n)
		for _, ch := range []string{"\u00e2", "\u00a0", "\u07ff", "\u0080", "\u0800", "\uffff", "\U0010ffff",
			"\xc0\x80", "\xc1\xbf", "\xc2\x41", "\xc2\xc0", "\xdf\x7f", "\xdf", "\xe0\xa0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\x80"} {
			for _, body := range []string{`"` + s + ch + `"`, `"` + s + ch + `x"`, `{"a":"` + s + ch + `","b":1}`} {
				got, err := CanonicalJSON([]byte(body), nil)
				if valid := utf8.ValidString(ch); valid != (err == nil) {
					t.Errorf("CanonicalJSON(%q) error %v, want valid %t", body, err, valid)
				} else if valid && string(got) != body {
					t.Errorf("CanonicalJSON(%q) = %q", body, got)
				}
			}
			if _, err := CanonicalJSON([]byte(`"`+s+ch), nil); err == nil {
				t.Errorf("CanonicalJSON(%q) accepts an unterminated string", `"`+s+ch)
			}
		}
	}
}
