package templates_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// The runtime canonicalises JSON bodies (RFC 8785) with its own single-pass canonicaliser. These
// tests hold it to an oracle built from independent parts — github.com/gowebpki/jcs, the
// RFC 8785 implementation the runtime used before, for the canonical form and its strictness,
// and encoding/json for the exclusions and the I-JSON number check — on the RFC's examples and
// on whatever the fuzzer finds. The oracle lives here, outside the runtime, so that the
// generated runtime does not depend on jcs.

// oracleCanonical is the runtime's former CanonicalJSON.
func oracleCanonical(body []byte, exclude []string) ([]byte, error) {
	canon, err := jcs.Transform(body)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if err := oracleNumbers(doc); err != nil {
		return nil, err
	}
	if len(exclude) == 0 {
		return canon, nil
	}
	for _, e := range exclude {
		oracleRemove(doc, strings.Split(e, "."))
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return jcs.Transform(out)
}

func oracleRemove(v any, path []string) {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(x, path[0])
		} else if child, ok := x[path[0]]; ok {
			oracleRemove(child, path[1:])
		}
	case []any:
		for _, e := range x {
			oracleRemove(e, path)
		}
	}
}

// oracleNumbers refuses a number that a float64 does not carry exactly, checked through the
// canonical form of that one number: parsing it back must give the same decimal value.
func oracleNumbers(v any) error {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if err := oracleNumbers(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := oracleNumbers(e); err != nil {
				return err
			}
		}
	case json.Number:
		// CanonicalJSON of a lone number is the runtime's own check; the oracle's is a
		// comparison of decimal values with big arithmetic.
		if !exactDecimal(string(x)) {
			return fmt.Errorf("inexact %s", x)
		}
	}
	return nil
}

// TestCanonicalRFC8785 runs the examples of RFC 8785 and its number table (appendix B) through
// the runtime and the oracle.
func TestCanonicalRFC8785(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		// RFC 8785 section 3.2.2 (numbers, literals, escapes) and 3.2.3 (sorting).
		// (The RFC's 333333333.33333329 is left out: its float64 prints as 333333333.3333333, a
		// different number, which the runtime refuses; see TestCanonicalRefusesRounding.)
		{`{"numbers": [1E30, 4.50, 2e-3, 0.000000000000000000000000001],
		  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/", "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`},
		{`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
		  "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			`{"\r":"Carriage Return","1":"One","` + "\u0080" + `":"Control","ö":"Latin Small Letter O With Diaeresis","€":"Euro Sign","😀":"Emoji: Grinning Face","` + "\ufb33" + `":"Hebrew Letter Dalet With Dagesh"}`},
		// Appendix B, the numbers a float64 carries exactly.
		{`[0, -0, 1e-7, 1e-6, 9.999999999999999e20, 1e21, 5e-324, 1.7976931348623157e308, 295147905179352830000, 4.5e15, 1.5e-7]`,
			`[0,0,1e-7,0.000001,999999999999999900000,1e+21,5e-324,1.7976931348623157e+308,295147905179352830000,4500000000000000,1.5e-7]`},
	}
	for _, tc := range cases {
		got, err := idem.CanonicalJSON([]byte(tc.in), nil)
		if err != nil || string(got) != tc.want {
			t.Errorf("CanonicalJSON(%s)\n = %s, %v\nwant %s", tc.in, got, err, tc.want)
		}
		if o, err := oracleCanonical([]byte(tc.in), nil); err == nil && string(o) != tc.want {
			t.Errorf("the oracle disagrees with the RFC on %s: %s", tc.in, o)
		}
	}
}

// FuzzCanonicalMatchesOracle: on any body and exclude list, the runtime and the oracle accept
// the same documents and give the same bytes.
func FuzzCanonicalMatchesOracle(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[1.5e3,"x",null],"t":{"u":1}}`, `[{"t":1},{"a":{"b":2,"c":3}}]`, `"\u00e9\ud83d\ude00"`,
		`{"a":{"b":{"c":0.1}}}`, `1e400`, `{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `"\ud800"`, `"\udc00x"`,
		`[1,2,]`, `{"a":1}x`, ` {"x" : [ true , false , null ] } `, `-0.0e-0`, `0.1e1`, `01`, `1.`, `"\x80"`,
		`9007199254740993`, `{"t":9007199254740993}`, `[[[[[]]]]]`, `{"<&>":"<&>"}`, `"\u0000\u001f\u007f"`,
	} {
		f.Add([]byte(s), "t,a.b")
	}
	for _, tc := range oraclePathCases {
		f.Add([]byte(tc.body), strings.Join(tc.exclude, ","))
	}
	f.Fuzz(func(t *testing.T, body []byte, excludeList string) {
		var exclude []string
		for e := range strings.SplitSeq(excludeList, ",") {
			if e == "" || strings.HasPrefix(e, ".") || strings.HasSuffix(e, ".") || strings.Contains(e, "..") {
				return // an invalid path: both refuse it, tested elsewhere
			}
			exclude = append(exclude, e)
		}
		got, err := idem.CanonicalJSON(body, exclude)
		want, oerr := oracleCanonical(body, exclude)
		switch {
		case err != nil && oerr != nil:
			if !errors.Is(err, idem.ErrNotIJSON) {
				t.Fatalf("error %v is not ErrNotIJSON", err)
			}
		case err != nil:
			t.Fatalf("CanonicalJSON(%q, %q) refused what the oracle accepts as %s: %v", body, exclude, want, err)
		case oerr != nil:
			t.Fatalf("CanonicalJSON(%q, %q) = %s, but the oracle refuses it: %v", body, exclude, got, oerr)
		case !bytes.Equal(got, want):
			t.Fatalf("CanonicalJSON(%q, %q)\n = %s\nwant %s (oracle)", body, exclude, got, want)
		}
	})
}

// oraclePathCases take the paths of the canonicaliser's member loop and of its reordering: names
// read within the first word, after it or unescaped; values read inline (plain strings, short
// integers, null, true) or not; members excluded first, in the middle, last, one after another,
// around whitespace, inside reordered objects; names whose first 8 bytes (their sort keys) tie;
// objects past the 32 members of the insertion sort.
var oraclePathCases = []struct {
	body    string
	exclude []string
}{
	{`{"abcdefgh":1,"abcdefg":2,"abc\u0064":3,"ab":4,"abcdefghijklmnopq":5}`, nil},
	{`{"b":null,"a":true,"c":false,"d":[null,true,false]}`, nil},
	{`{"f":123456789012345,"e":1234567890123456,"d":7E1,"c":-0,"b":10.50,"a":0,"g":9007199254740992}`, nil},
	{`{"a":9007199254740993}`, nil},
	{`{"a":nul}`, nil},
	{`{"b" : [ 1 ] , "a" : { "y":1 , "x":2 } }`, nil},
	{`{"b":"x\u0041","a":"\n","c":"\u00e9t\u00e9"}`, nil},
	{`{"a\ufb01":1,"a\ud83d\ude00":2,"a":3,"\ud83d\ude00":4,"\ufb01":5}`, nil},
	{`{"prefix__b":1,"prefix__a":2,"prefix__":3}`, nil},
	{`{"prefix__a":1,"b":2,"prefix__a":3}`, nil},
	{`{"b":[{"a":2,"a0":3}],"a":{"a":1}}`, nil},
	{`{"t" : 1 ,  "b":2,"a":3}`, []string{"t"}},
	{`{"a0":1 , "b":2,"c":3}`, []string{"a0"}},
	{`{"c":1,"t":{"x":[1,2]},"a":2}`, []string{"t"}},
	{`{"b":1,"a":2,"t":3 }`, []string{"t"}},
	{`{"z":0,"t":1,"u":[2],"a":3}`, []string{"t", "u"}},
	{`{"t":1, "u":2 ,"b":3,"a":4}`, []string{"t", "u"}},
	{`{"b":{"d":1,"t":2,"c":3},"a":0}`, []string{"b.t"}},
	{`{"x":[{"t":1,"b":2,"a":3},{"b":4,"t":5}],"a":[]}`, []string{"x.t"}},
	{oracleLargeObject(40), []string{"t"}},
	{oracleLargeObject(32), []string{"t"}},
	{oracleLargeObject(33) + " ", []string{"member_001"}},
}

// oracleLargeObject is an object of n members in reverse order whose names share their first 8
// bytes, with an excluded one and a reordered object among them.
func oracleLargeObject(n int) string {
	var b strings.Builder
	b.WriteString(`{"t":1,"member_000_x":{"z":1,"y":2}`)
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `,"member_%03d":%d`, i, i)
	}
	b.WriteString("}")
	return b.String()
}

// TestCanonicalPathsMatchOracle: the runtime and the oracle agree on oraclePathCases.
func TestCanonicalPathsMatchOracle(t *testing.T) {
	t.Parallel()
	for _, tc := range oraclePathCases {
		got, err := idem.CanonicalJSON([]byte(tc.body), tc.exclude)
		want, oerr := oracleCanonical([]byte(tc.body), tc.exclude)
		if (err != nil) != (oerr != nil) || !bytes.Equal(got, want) {
			t.Errorf("CanonicalJSON(%s, %q)\n = %s, %v\noracle %s, %v", tc.body, tc.exclude, got, err, want, oerr)
		}
	}
}

// exactDecimal reports whether the JSON number s has the value of the shortest decimal that
// its float64 prints as, compared with big rational arithmetic: the canonical form of a number
// that fails this would state another number.
func exactDecimal(s string) bool {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	if f == 0 { // also an underflow: exact only if every digit is zero
		mant, _, _ := strings.Cut(strings.ToLower(s), "e")
		return strings.Trim(mant, "-0.") == ""
	}
	given, ok := new(big.Rat).SetString(s)
	if !ok {
		return false
	}
	printed, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return given.Cmp(printed) == 0
}

// TestCanonicalRefusesRounding: a number whose float64 prints as another number is refused, not
// rounded, by the runtime and by the oracle.
func TestCanonicalRefusesRounding(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"333333333.33333329", "9007199254740993", "1e400", "-1e400", "1e-400", "0.10000000000000000001"} {
		if out, err := idem.CanonicalJSON([]byte(n), nil); !errors.Is(err, idem.ErrNotIJSON) {
			t.Errorf("CanonicalJSON(%s) = %s, %v; want ErrNotIJSON", n, out, err)
		}
		if out, err := oracleCanonical([]byte(n), nil); err == nil {
			t.Errorf("the oracle accepts %s as %s", n, out)
		}
	}
}
