package idem

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// canonicalCase is a document, its exclude list, and the canonical form or the error expected.
type canonicalCase struct {
	name, body string
	exclude    []string
	want       string
	err        error
}

// runCanonical checks CanonicalJSON on each case, as a subtest of its own.
func runCanonical(t *testing.T, cases []canonicalCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := CanonicalJSON([]byte(tc.body), tc.exclude)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("CanonicalJSON(%s) error = %v, want %v", tc.body, err, tc.err)
			}
			if string(got) != tc.want {
				t.Errorf("CanonicalJSON(%s)\n = %s\nwant %s", tc.body, got, tc.want)
			}
		})
	}
}

func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "sorted and compact", body: "{ \"b\": 1,\n \"a\": [true, null] }", want: `{"a":[true,null],"b":1}`},
		{name: "number spellings", body: `{"a":1.0,"b":1e2,"c":-0,"d":0.1}`, want: `{"a":1,"b":100,"c":0,"d":0.1}`},
		{name: "escapes", body: `{"s":"\u00e9\/<>"}`, want: `{"s":"é/<>"}`},
		{name: "utf-16 key order", body: `{"\ud83d\ude00":1,"\ufb01":2}`, want: `{"😀":1,"ﬁ":2}`},
		{name: "exclude top level", body: `{"amount":5,"timestamp":"t1"}`, exclude: []string{"timestamp"}, want: `{"amount":5}`},
		{name: "exclude nested", body: `{"meta":{"request_id":"r","source":"web"},"x":1}`, exclude: []string{"meta.request_id"}, want: `{"meta":{"source":"web"},"x":1}`},
		{name: "exclude through arrays", body: `{"items":[{"p":1,"t":"a"},{"p":2,"t":"b"},3]}`, exclude: []string{"items.t"}, want: `{"items":[{"p":1},{"p":2},3]}`},
		{name: "exclude in top-level array", body: `[{"t":1,"k":2}]`, exclude: []string{"t"}, want: `[{"k":2}]`},
		{name: "exclude absent path", body: `{"a":{"b":1}}`, exclude: []string{"x.y", "a.b.c"}, want: `{"a":{"b":1}}`},
		{name: "exclude keeps big-enough numbers", body: `{"n":9007199254740992,"t":1}`, exclude: []string{"t"}, want: `{"n":9007199254740992}`},
		{name: "scalar", body: ` "x" `, want: `"x"`},
		{name: "escaped names sort unescaped", body: `{"b":1,"\u0061":2,"\n":3,"\u0000":4,"a\"":5}`, want: `{"\u0000":4,"\n":3,"a":2,"a\"":5,"b":1}`},
		{name: "long names sharing a prefix", body: `{"metadata_b":1,"metadata_a":2,"metadata":3}`, want: `{"metadata":3,"metadata_a":2,"metadata_b":1}`},
		{name: "sorted already", body: `{"a":1,"b":{"c":2,"d":[3]}}`, want: `{"a":1,"b":{"c":2,"d":[3]}}`},
		{name: "exclude first and last", body: `{"t":1,"b":2,"a":3,"z":{"t":4}}`, exclude: []string{"t", "z"}, want: `{"a":3,"b":2}`},
		{name: "excluded in every place", body: `{"t":1 , "u":2,"a":{"t":[],"b":0},"t2":3,"v":"\u0041","t3":4}`,
			exclude: []string{"t", "u", "t2", "t3", "a.t"}, want: `{"a":{"b":0},"v":"A"}`},
		{name: "all excluded", body: `{"t":1,"u":2}`, exclude: []string{"t", "u"}, want: `{}`},
		{name: "respelled inside a run", body: `[1.0,2,3e0,"a\/b",-0,1E2,0.5]`, want: `[1,2,3,"a/b",0,100,0.5]`},
		{name: "whitespace everywhere", body: " \t\r\n{ \"b\" :\n[ 1 , 2 ] , \"a\" : { } }\n", want: `{"a":{},"b":[1,2]}`},
		{name: "unsorted after a long prefix", body: `["a long string before the object",{"b":1,"a":{"d":2,"c":3}}]`,
			want: `["a long string before the object",{"a":{"c":3,"d":2},"b":1}]`},
		{name: "escaped duplicate", body: `{"ab":1,"a\u0062":2}`, err: ErrNotIJSON},
		{name: "duplicate excluded", body: `{"t":1,"t":2}`, exclude: []string{"t"}, err: ErrNotIJSON},
		{name: "control character", body: "[\"a\x01\"]", err: ErrNotIJSON},
		{name: "invalid UTF-8", body: "[\"\xff\"]", err: ErrNotIJSON},
		{name: "unpaired surrogate", body: `["\ud800x"]`, err: ErrNotIJSON},
		{name: "not JSON", body: `{"a":}`, err: ErrNotIJSON},
		{name: "duplicate names", body: `{"a":1,"a":2}`, err: ErrNotIJSON},
		{name: "trailing data", body: `{} {}`, err: ErrNotIJSON},
		{name: "lossy integer", body: `{"id":12345678901234567890}`, err: ErrNotIJSON},
		{name: "2^53+1", body: `[9007199254740993]`, err: ErrNotIJSON},
		{name: "overflow", body: `[1e400]`, err: ErrNotIJSON},
		{name: "fraction without digits", body: `[1.]`, err: ErrNotIJSON},
		{name: "leading zero before a fraction", body: `[01.5]`, err: ErrNotIJSON},
		{name: "negative leading zero before a fraction", body: `[-01.5]`, err: ErrNotIJSON},
		{name: "fraction without an integer", body: `[-.5]`, err: ErrNotIJSON},
		{name: "underflow", body: `[1e-400]`, err: ErrNotIJSON},
		{name: "empty exclude entry", body: `{}`, exclude: []string{""}, err: ErrInvalid},
		{name: "empty exclude segment", body: `{}`, exclude: []string{"a..b"}, err: ErrInvalid},
	})
}

func TestExactInFloat64(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"0": true, "-0": true, "0.1": true, "1.0": true, "100e-2": true, "123.456e-2": true,
		"9007199254740992": true, "9007199254740993": false, "12345678901234567890": false,
		"1e400": false, "1e-400": false, "0.10000000000000000555": false, "5e-324": true,
		"1e99999999999999999999": false,
	} {
		if got := exactInFloat64(s); got != want {
			t.Errorf("exactInFloat64(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestFingerprint(t *testing.T) {
	t.Parallel()
	fp := func(method, route, body, ct string, exclude ...string) string {
		t.Helper()
		s, err := Fingerprint(method, route, []byte(body), ct, exclude)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := fp("POST", "/charges", `{"amount":5,"ts":1}`, "application/json", "ts")
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("fingerprint %q is not sha256:<hex>", base)
	}
	same := map[string]string{
		"reordered and respaced": fp("POST", "/charges", "{ \"ts\": 1, \"amount\": 5 }", "application/json", "ts"),
		"excluded field differs": fp("POST", "/charges", `{"amount":5,"ts":2}`, "application/json", "ts"),
		"charset parameter":      fp("POST", "/charges", `{"amount":5,"ts":1}`, "application/json; charset=utf-8", "ts"),
	}
	for name, got := range same {
		if got != base {
			t.Errorf("%s: fingerprint differs", name)
		}
	}
	different := map[string]string{
		"method":          fp("PUT", "/charges", `{"amount":5,"ts":1}`, "application/json", "ts"),
		"route":           fp("POST", "/refunds", `{"amount":5,"ts":1}`, "application/json", "ts"),
		"body":            fp("POST", "/charges", `{"amount":6,"ts":1}`, "application/json", "ts"),
		"not excluded":    fp("POST", "/charges", `{"amount":5,"ts":1}`, "application/json"),
		"raw media type":  fp("POST", "/charges", `{"amount":5,"ts":1}`, "text/plain", "ts"),
		"no content type": fp("POST", "/charges", `{"amount":5,"ts":1}`, "", "ts"),
	}
	for name, got := range different {
		if got == base {
			t.Errorf("%s: fingerprint should differ", name)
		}
	}
	if fp("POST", "/a", `{"b":1}`, "application/vnd.api+json") != fp("POST", "/a", `{ "b" : 1 }`, "application/vnd.api+json") {
		t.Error("a +json media type is not canonicalised")
	}
	// Parts cannot shift into each other.
	if fp("POST", "/ab", "", "") == fp("POST/", "ab", "", "") || fp("GET", "/", "x", "") == fp("GET", "/x", "", "") {
		t.Error("method, route and body are not separated")
	}
	// Bodies that are not I-JSON fall back to their raw bytes: stable, but byte-exact.
	big := `{"id":12345678901234567890}`
	if fp("POST", "/a", big, "application/json") != fp("POST", "/a", big, "application/json") ||
		fp("POST", "/a", big, "application/json") == fp("POST", "/a", ` {"id":12345678901234567890}`, "application/json") {
		t.Error("a non-I-JSON body is not fingerprinted by its raw bytes")
	}
	if _, err := Fingerprint("POST", "/a", nil, "text/plain", []string{"a."}); !errors.Is(err, ErrInvalid) {
		t.Errorf("malformed exclude = %v, want ErrInvalid even for a raw body", err)
	}
}

func TestDerive(t *testing.T) {
	t.Parallel()
	a := Derive("order-1", "charge")
	if a != Derive("order-1", "charge") {
		t.Error("Derive is not deterministic")
	}
	if !regexp.MustCompile(`^charge-[0-9a-f]{40}$`).MatchString(a) {
		t.Errorf("Derive = %q, want charge-<40 hex>", a)
	}
	seen := map[string]string{}
	for _, in := range [][2]string{{"order-1", "charge"}, {"order-1", "email"}, {"order-2", "charge"}, {"ab", "c"}, {"a", "bc"}, {"", "c"}, {a, "charge"}} {
		k := Derive(in[0], in[1])
		if prev, dup := seen[k]; dup {
			t.Errorf("Derive%v collides with %s", in, prev)
		}
		seen[k] = in[0] + "|" + in[1]
	}
	if long := Derive(strings.Repeat("p", 10_000), strings.Repeat("s", maxStepLen)); len(long) > 128 {
		t.Errorf("derived key of %d bytes is over SQS's 128", len(long))
	}
	for _, bad := range []string{"", "a:b", "a b", strings.Repeat("s", maxStepLen+1), "é"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Derive with step %q did not panic", bad)
				}
			}()
			Derive("p", bad)
		}()
	}
}

// FuzzCanonicalJSON: canonical output is valid JSON, canonical again unchanged, and stable under
// exclusion of fields it does not have.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.5e3,"x",null]}`, `[{"t":1}]`, `"\u00e9"`, `{"a":{"b":{"c":0.1}}}`, `1e400`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, err := CanonicalJSON(body, []string{"t", "a.b"})
		if err != nil {
			if !errors.Is(err, ErrNotIJSON) {
				t.Fatalf("error %v is not ErrNotIJSON", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("canonical form %q is not JSON", out)
		}
		again, err := CanonicalJSON(out, nil)
		if err != nil || string(again) != string(out) {
			t.Fatalf("canonical form %q is not a fixed point: %q, %v", out, again, err)
		}
		if _, err := Fingerprint("POST", "/", body, "application/json", []string{"t"}); err != nil {
			t.Fatalf("Fingerprint: %v", err)
		}
	})
}

// checkNumber holds the canonicaliser's printing of the number text to appendExact, which parses
// it with strconv: the same bytes, or both refuse it. (A zero whose exponent overflows an int is
// 0 to the canonicaliser and to RFC 8785, and an error to appendExact.)
func checkNumber(t *testing.T, text string) {
	t.Helper()
	got, err := CanonicalJSON([]byte(text), nil)
	want, werr := appendExact(nil, text)
	switch {
	case err != nil && werr != nil:
	case err == nil && werr != nil && string(got) == "0":
		mant, _, _ := strings.Cut(strings.ToLower(text), "e")
		if strings.Trim(mant, "-0.") != "" {
			t.Errorf("number %s = 0, but it is not zero", text)
		}
	case err != nil || werr != nil || string(got) != string(want):
		t.Errorf("number %s = %s, %v; strconv says %s, %v", text, got, err, want, werr)
	}
}

// TestNumbers prints many float64s, spelled in many ways, both through the canonicaliser's own
// digits and through strconv.
func TestNumbers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "-0", "0.0", "-0.0e-5", "1", "-1", "1.5", "100", "1e21", "1e20", "123456789012345678901",
		"999999999999999", "9999999999999999", "0.000001", "0.0000001", "1e-7", "1.5e-7", "4.5e15", "12.5", "0.055",
		"1E30", "1e+30", "2e-3", "1e-306", "1e-307", "1e-308", "2.2250738585072014e-308", "5e-324", "1e308",
		"1.7976931348623157e308", "1.8e308", "123456789012345e-320", "0.1000000000000000055511151231257827",
		"100000000000000000000000", "1000000000000000000000000e-24", "0e99999999999999999999", "1e99999999999999999999",
		// The plain fractions printed as written, and their bounds.
		"-0.5", "0.000005", "-0.000005", "0.0000005", "123456789012.345", "1234567890123.456", "0.123456789012345",
		"0.1234567890123456", "-0.000001", "0.5e1", "0.00", "10.05", "1.50"} {
		checkNumber(t, s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var f float64
		switch rng.IntN(3) {
		case 0:
			f = math.Float64frombits(rng.Uint64())
		case 1:
			f = float64(rng.Int64N(1e16)) / math.Pow10(rng.IntN(30))
		default:
			f = rng.NormFloat64() * math.Pow10(rng.IntN(60)-30)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		for _, format := range []byte{'e', 'E', 'f', 'g'} {
			for _, prec := range []int{-1, rng.IntN(20)} {
				checkNumber(t, strconv.FormatFloat(f, format, prec, 64))
			}
		}
	}
}

// FuzzNumber: any JSON number prints as strconv's float64 would, or is refused by both.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "1.5e-7", "1e21", "123456789012345", "1234567890123456789", "0.000001e300", "1e-400", "12.50"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := len(text) - 1
		if text == "" || !(text[0] == '-' || '0' <= text[0] && text[0] <= '9') || !('0' <= text[last] && text[last] <= '9') || !json.Valid([]byte(text)) {
			return
		}
		checkNumber(t, text)
	})
}

// TestSpecial8 holds the word-at-a-time scan of string bytes to the byte table: the lowest byte
// it marks is the first that is not plain.
func TestSpecial8(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	special := []byte{0, 0x1f, 0x20, '"', '\\', 0x7f, 0x80, 0xff, 'a'}
	for range 100000 {
		var b [8]byte
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = special[rng.IntN(len(special))]
			} else {
				b[i] = byte(rng.IntN(256))
			}
		}
		want := 8
		for i, x := range b {
			if !plain[x] {
				want = i
				break
			}
		}
		if got := bits.TrailingZeros64(special8(binary.LittleEndian.Uint64(b[:]))) / 8; got != want {
			t.Fatalf("special8(%q) marks byte %d first, want %d", b, got, want)
		}
	}
}

// TestCompareUTF16 holds the byte-wise order of member names to the order of their UTF-16 code
// units.
func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	names := []string{"", "a", "ab", "b", "\u007f", "é", "\u0080", "\ud7ff", "\ue000", "\ufb33", "\uffff",
		"😀", "\U00010000", "\U0010ffff", "a😀", "a\uffff", "ﬁ", "€"}
	for i := range names {
		names[i], _ = strconv.Unquote(`"` + names[i] + `"`)
	}
	for _, a := range names {
		for _, b := range names {
			want := slicesCompare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
			if got := sign(compareUTF16([]byte(a), []byte(b))); got != want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func slicesCompare(a, b []uint16) int { return slices.Compare(a, b) }

func sign(n int) int { return min(max(n, -1), 1) }

// TestHexSum: hexSum writes every byte value as hex.Encode does, in every position of a word.
func TestHexSum(t *testing.T) {
	t.Parallel()
	for shift := range 4 {
		for first := 0; first < 256; first += sha256.Size {
			var sum [sha256.Size]byte
			for i := range sum {
				sum[i] = byte(first + (i+shift)%sha256.Size)
			}
			var got [2 * sha256.Size]byte
			hexSum(&got, &sum)
			if want := hex.EncodeToString(sum[:]); string(got[:]) != want {
				t.Errorf("hexSum(%x) = %s", sum, got)
			}
		}
	}
}

// TestFingerprinterMatchesFingerprint: a compiled Fingerprinter and the one-call Fingerprint agree,
// and the fingerprint of a body is pinned, so that stored records keep matching across versions.
func TestFingerprinterMatchesFingerprint(t *testing.T) {
	t.Parallel()
	f, err := NewFingerprinter([]string{"timestamp", "items.name"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{"application/json", "Application/JSON; charset=UTF-8", "text/plain", "application/problem+json", "application/json; x"} {
		want, err := Fingerprint("POST", "/charges", body1K, ct, []string{"timestamp", "items.name"})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Fingerprint("POST", "/charges", body1K, ct); got != want {
			t.Errorf("Content-Type %s: Fingerprinter %s, Fingerprint %s", ct, got, want)
		}
	}
	for _, tc := range []struct{ body, ct, want string }{
		// The values of the first single-pass canonicaliser (before Fingerprinter existed).
		{`{"b":[1,2.50],"a":"x","timestamp":3}`, "application/json", "sha256:1ee7d70e868846836e07637d3eada6186bb61b0c904e1b57e8ed1f883aedb574"},
		{`{"b":[1,2.50],"a":"x","timestamp":3}`, "text/plain", "sha256:adb22b8fcda8f8cab4b3e739f7fefbc5ea0480c250699306552c3826f1dbf5a2"},
	} {
		if got := f.Fingerprint("POST", "/charges", []byte(tc.body), tc.ct); got != tc.want {
			t.Errorf("Fingerprint(%s, %s) = %s, want %s", tc.body, tc.ct, got, tc.want)
		}
	}
	if _, err := NewFingerprinter([]string{"a..b"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NewFingerprinter(a..b) = %v, want ErrInvalid", err)
	}
}

// body1K is a typical 1 KB JSON request body: a payment with line items, addresses, metadata, a
// timestamp to exclude, escapes, non-ASCII text and fractional numbers.
var body1K = []byte(`{"customer":"cus_9a8b7c6d5e4f","amount":12999,"currency":"eur","locale":"fr-FR","v":2,` +
	`"description":"Order #100234 for Jane Doe","timestamp":"2026-01-01T12:34:56.789Z","capture":true,` +
	`"statement_descriptor":null,"items":[{"sku":"SKU-00017","name":"Espresso cups, set of 4","qty":2,` +
	`"unit_price":1999,"tax_rate":0.2,"discount":null},{"sku":"SKU-00342","name":"Grinder \u00e9dition limit\u00e9e",` +
	`"qty":1,"unit_price":7999,"tax_rate":0.2,"discount":{"code":"WINTER","percent":10}},{"sku":"SKU-01200",` +
	`"name":"Descaler","qty":3,"unit_price":333,"tax_rate":0.055,"discount":null}],"shipping":{"name":"Jane Doe",` +
	`"phone":"+33 1 23 45 67 89","address":{"line1":"12 rue de la Paix","line2":"Bâtiment B","city":"Paris",` +
	`"postal_code":"75002","country":"FR"},"method":"express","cost":599},"billing":{"same_as_shipping":true},` +
	`"metadata":{"order_id":"o-100234","channel":"web","campaign":"newsletter-2026-01","ab_bucket":7,` +
	`"referrer":"https://example.com/promo?utm_source=mail"},"risk":{"score":12.5,"checks":["cvc","postal_code","3ds"]}}`)

// BenchmarkFingerprint1K measures the fingerprint of a 1 KB JSON body with one excluded field,
// compiled once as the middleware does: the cost it pays on every request. The goal is at least
// 300 MB/s.
func BenchmarkFingerprint1K(b *testing.B) {
	f, err := NewFingerprinter([]string{"timestamp"})
	if err != nil {
		b.Fatal(err)
	}
	want := f.Fingerprint("POST", "/charges", body1K, "application/json")
	b.SetBytes(int64(len(body1K)))
	b.ReportAllocs()
	for b.Loop() {
		if got := f.Fingerprint("POST", "/charges", body1K, "application/json"); got != want {
			b.Fatalf("fingerprint %s, then %s", want, got)
		}
	}
}

// BenchmarkCanonical1K measures the canonical form alone of BenchmarkFingerprint1K's body, with
// its excluded field: the part of the fingerprint that is not the hash.
func BenchmarkCanonical1K(b *testing.B) {
	ex, err := compileExclude([]string{"timestamp"})
	if err != nil {
		b.Fatal(err)
	}
	c := getCanonicalizer()
	defer c.release()
	b.SetBytes(int64(len(body1K)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.canonicalize(body1K, ex); err != nil {
			b.Fatal(err)
		}
	}
}

// isJSONByParse is isJSON by its definition alone: the media type as mime.ParseMediaType reads it.
func isJSONByParse(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// TestIsJSON: isJSON's shortcuts answer as the parse does, on the spellings that take them.
func TestIsJSON(t *testing.T) {
	t.Parallel()
	for ct, want := range map[string]bool{
		"application/json":                  true,
		"Application/JSON; charset=UTF-8":   true,
		" application/json ":                true,
		"application/problem+json":          true,
		"application/vnd.api+JSON; ext=x":   true,
		"application/json; x":               false, // a malformed parameter: ParseMediaType refuses it
		"application/octet-stream":          false,
		"text/plain; charset=utf-8":         false,
		"application/x-www-form-urlencoded": false,
		"":                                  false,
		"json":                              false, // no subtype
		"application/jsonx":                 false,
		"application/json;":                 true,
		"text/json ; q":                     false,
	} {
		if got := isJSON(ct); got != want {
			t.Errorf("isJSON(%q) = %v, want %v", ct, got, want)
		}
		if got := isJSONByParse(ct); got != want {
			t.Errorf("the table is wrong: ParseMediaType says %v for %q", got, ct)
		}
	}
}

// FuzzIsJSON: isJSON agrees with mime.ParseMediaType on every Content-Type.
func FuzzIsJSON(f *testing.F) {
	for _, ct := range []string{"application/json", "application/vnd.api+json; v=1", "text/plain", "a/b+JSON ;", "application/json; x", " JSON"} {
		f.Add(ct)
	}
	f.Fuzz(func(t *testing.T, ct string) {
		if got, want := isJSON(ct), isJSONByParse(ct); got != want {
			t.Errorf("isJSON(%q) = %v, ParseMediaType says %v", ct, got, want)
		}
	})
}

// TestFingerprinterAllocates: a request's fingerprint allocates only the returned string, for
// application/json and for every media type that is not JSON: the pooled canonicaliser keeps its
// buffers, and those types are told apart without mime.ParseMediaType, which allocates. (A +json
// type still goes through it, to be refused when it is malformed as the parse refuses it.)
func TestFingerprinterAllocates(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race sync.Pool drops its canonicalizers at random, so the count means nothing")
	}
	f, err := NewFingerprinter([]string{"timestamp"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "text/plain; charset=utf-8", "application/octet-stream", "application/x-www-form-urlencoded"} {
		f.Fingerprint("POST", "/charges", body1K, ct) // fill the pool
		if n := testing.AllocsPerRun(100, func() { f.Fingerprint("POST", "/charges", body1K, ct) }); n != 1 {
			t.Errorf("Content-Type %s: %v allocations a fingerprint, want 1 (the string)", ct, n)
		}
	}
}

// TestCanonicalPaths holds each path of the canonicaliser's member loop and of its reordering to
// the exact canonical form: names read in the loop's first word or after it, or through
// memberName; values read inline (plain strings, short integers, null and true) or through a
// call; members excluded first, in the middle, last, after whitespace, one after another and
// inside reordered objects (a member's end is where the next one starts, so an excluded member
// in between must leave that right); objects past the insertion sort's 32 members; names whose
// keys tie.
func TestCanonicalPaths(t *testing.T) {
	t.Parallel()
	runCanonical(t, []canonicalCase{
		{name: "names around a word", body: `{"abcdefgh":1,"abcdefg":2,"abc\u0064":3,"ab":4,"abcdefghijklmnopq":5}`,
			want: `{"ab":4,"abcd":3,"abcdefg":2,"abcdefgh":1,"abcdefghijklmnopq":5}`},
		{name: "short document", body: `{"b":1,"a":2}`, want: `{"a":2,"b":1}`},
		{name: "literals", body: `{"b":null,"a":true,"c":false,"d":[null,true,false]}`,
			want: `{"a":true,"b":null,"c":false,"d":[null,true,false]}`},
		{name: "truncated null", body: `{"a":nul}`, err: ErrNotIJSON},
		{name: "truncated true", body: `{"a":tru`, err: ErrNotIJSON},
		{name: "long null", body: `{"a":nulll}`, err: ErrNotIJSON},
		{name: "integers", body: `{"f":123456789012345,"e":1234567890123456,"d":7E1,"c":-0,"b":10.50,"a":0}`,
			want: `{"a":0,"b":10.5,"c":0,"d":70,"e":1234567890123456,"f":123456789012345}`},
		{name: "integer then fraction", body: `{"b":12.5e1,"a":3.25}`, want: `{"a":3.25,"b":125}`},
		{name: "leading zero", body: `{"a":01}`, err: ErrNotIJSON},
		{name: "16-digit integer that is not exact", body: `{"a":9007199254740993}`, err: ErrNotIJSON},
		{name: "integer at the end", body: `{"a":12`, err: ErrNotIJSON},
		{name: "integer then junk", body: `{"a":12x}`, err: ErrNotIJSON},
		{name: "nested values with whitespace", body: `{"b" : [ 1 ] , "a" : { "y":1 , "x":2 } }`,
			want: `{"a":{"x":2,"y":1},"b":[1]}`},
		{name: "escapes in reordered members", body: `{"b":"x\u0041","a":"\n","c":"\u00e9t\u00e9"}`,
			want: `{"a":"\n","b":"xA","c":"été"}`},
		{name: "utf-16 order after a shared prefix", body: `{"a\ufb01":1,"a\ud83d\ude00":2,"a":3}`,
			want: `{"a":3,"a😀":2,"aﬁ":1}`},
		{name: "keys tie on a shared prefix", body: `{"prefix__b":1,"prefix__a":2,"prefix__":3}`,
			want: `{"prefix__":3,"prefix__a":2,"prefix__b":1}`},
		{name: "duplicates at different depths", body: `{"b":[{"a":2,"a0":3}],"a":{"a":1}}`,
			want: `{"a":{"a":1},"b":[{"a":2,"a0":3}]}`},
		{name: "duplicate with a tied key", body: `{"prefix__a":1,"b":2,"prefix__a":3}`, err: ErrNotIJSON},
		{name: "exclude first before whitespace", body: `{"t" : 1 ,  "b":2,"a":3}`, exclude: []string{"t"},
			want: `{"a":3,"b":2}`},
		{name: "exclude first of a sorted object", body: `{"a0":1 , "b":2,"c":3}`, exclude: []string{"a0"},
			want: `{"b":2,"c":3}`},
		{name: "exclude in the middle", body: `{"c":1,"t":{"x":[1,2]},"a":2}`, exclude: []string{"t"},
			want: `{"a":2,"c":1}`},
		{name: "exclude last before whitespace", body: `{"b":1,"a":2,"t":3 }`, exclude: []string{"t"},
			want: `{"a":2,"b":1}`},
		{name: "exclude one after another", body: `{"z":0,"t":1,"u":[2],"a":3}`, exclude: []string{"t", "u"},
			want: `{"a":3,"z":0}`},
		{name: "exclude first ones of a reordered object", body: `{"t":1, "u":2 ,"b":3,"a":4}`, exclude: []string{"t", "u"},
			want: `{"a":4,"b":3}`},
		{name: "exclude all but one", body: `{"t":1,"b":2,"u":3}`, exclude: []string{"t", "u"}, want: `{"b":2}`},
		{name: "exclude inside a reordered object", body: `{"b":{"d":1,"t":2,"c":3},"a":0}`, exclude: []string{"b.t"},
			want: `{"a":0,"b":{"c":3,"d":1}}`},
		{name: "exclude in reordered objects of an array", body: `{"x":[{"t":1,"b":2,"a":3},{"b":4,"t":5}],"a":[]}`,
			exclude: []string{"x.t"}, want: `{"a":[],"x":[{"a":3,"b":2},{"b":4}]}`},
	})
}

// TestCanonicalLargeObjects: objects around and past the insertion sort's 32 members, in reverse
// order, with an excluded member, a nested reordered object, and names whose keys (their first 8
// bytes) all tie; and with a duplicate.
func TestCanonicalLargeObjects(t *testing.T) {
	t.Parallel()
	for _, n := range []int{2, 31, 32, 33, 100} {
		var body, want []string
		for i := n - 1; i >= 0; i-- {
			body = append(body, fmt.Sprintf(`"member_%03d":%d`, i, i))
		}
		for i := range n {
			want = append(want, fmt.Sprintf(`"member_%03d":%d`, i, i))
		}
		in := `{"t":1,"member_000_x":{"z":1,"y":2},` + strings.Join(body, ",") + "}"
		w := "{" + want[0] + `,"member_000_x":{"y":2,"z":1},` + strings.Join(want[1:], ",") + "}"
		if got, err := CanonicalJSON([]byte(in), []string{"t"}); err != nil || string(got) != w {
			t.Errorf("%d members:\n got %s, %v\nwant %s", n, got, err, w)
		}
		dup := "{" + strings.Join(body, ",") + `,"member_001":0}`
		if _, err := CanonicalJSON([]byte(dup), nil); !errors.Is(err, ErrNotIJSON) {
			t.Errorf("%d members with a duplicate: error %v, want ErrNotIJSON", n, err)
		}
	}
}

// TestCanonicalDeep: reordered objects nested deep, each closing after the ones inside it have
// been rewritten.
func TestCanonicalDeep(t *testing.T) {
	t.Parallel()
	const depth = 500
	body := strings.Repeat(`{"b":[{"d":0,"c":`, depth) + "{}" + strings.Repeat(`}],"a":1}`, depth)
	want := strings.Repeat(`{"a":1,"b":[{"c":`, depth) + "{}" + strings.Repeat(`,"d":0}]}`, depth)
	if got, err := CanonicalJSON([]byte(body), []string{"b.x"}); err != nil || string(got) != want {
		t.Errorf("CanonicalJSON(%.60s...) = %.60s..., %v; want %.60s...", body, got, err, want)
	}
}

// TestCanonicalReorderedAgainstJSON: random documents of reordered objects nested in reordered
// objects, with members of every length around the chunks a reordered object is moved in, names
// whose sort keys tie in their first 7 or 8 bytes, whitespace, excluded members and, in some,
// a duplicate name, against encoding/json, which sorts map keys as RFC 8785 does for the names
// used here (no characters beyond U+FFFF).
func TestCanonicalReorderedAgainstJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	exclude := []string{"t", "n.t"}
	for i := range 3000 {
		g := docGen{rng: rng}
		body := g.object(0)
		got, err := CanonicalJSON(body, exclude)
		if g.duplicate {
			if !errors.Is(err, ErrNotIJSON) {
				t.Fatalf("document %d has a duplicate name: error %v, want ErrNotIJSON\n%s", i, err, body)
			}
			continue
		}
		if err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, body)
		}
		if want := jsonCanonical(t, body, exclude); !bytes.Equal(got, want) {
			t.Fatalf("document %d:\n%s\n got %s\nwant %s", i, body, got, want)
		}
	}
}

// docGen writes a random JSON document for TestCanonicalReorderedAgainstJSON.
type docGen struct {
	rng       *rand.Rand
	buf       bytes.Buffer
	duplicate bool
}

// names are the member names drawn from: short ones, and long ones whose first 7 or 8 bytes tie.
var names = []string{"a", "b", "c", "n", "t", "v", "z", "é", "abcdefg", "abcdefgh", "abcdefgi", "abcdefgh\\u0000",
	"abcdefghij", "abcdefgj", "abcdefg\\u0000", "abcdefgé", "abcdefghé", "abcdef"}

func (g *docGen) space() {
	if g.rng.IntN(8) == 0 {
		g.buf.WriteString([]string{" ", "\n", " \t "}[g.rng.IntN(3)])
	}
}

func (g *docGen) object(depth int) []byte {
	g.buf.WriteByte('{')
	n := g.rng.IntN(8)
	if g.rng.IntN(10) == 0 {
		n = 30 + g.rng.IntN(6) // around the insertion sort's bound
	}
	var used []string
	for k := range n {
		name := names[g.rng.IntN(len(names))]
		if g.rng.IntN(3) == 0 {
			name += fmt.Sprint(g.rng.IntN(40))
		}
		if slices.Contains(used, name) {
			if g.rng.IntN(50) != 0 {
				continue
			}
			g.duplicate = true
		}
		used = append(used, name)
		if k > 0 && g.buf.Bytes()[g.buf.Len()-1] != '{' {
			g.buf.WriteByte(',')
		}
		g.space()
		g.buf.WriteString(`"` + name + `"`)
		g.space()
		g.buf.WriteByte(':')
		g.space()
		g.value(depth + 1)
		g.space()
	}
	g.buf.WriteByte('}')
	return g.buf.Bytes()
}

func (g *docGen) value(depth int) {
	switch r := g.rng.IntN(10); {
	case r < 2 && depth < 4:
		g.object(depth)
	case r < 3 && depth < 4:
		g.buf.WriteByte('[')
		for k := range g.rng.IntN(3) {
			if k > 0 {
				g.buf.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.buf.WriteByte(']')
	case r < 5:
		fmt.Fprint(&g.buf, g.rng.IntN(1_000_000))
	default:
		// Lengths from 0 to 80, across the chunks of 32 bytes reordering moves members in.
		g.buf.WriteString(`"` + strings.Repeat("x", g.rng.IntN(81)) + `"`)
	}
}

// jsonCanonical is the canonical form of body by encoding/json, without the exclude paths.
func jsonCanonical(t *testing.T, body []byte, exclude []string) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("encoding/json: %v\n%s", err, body)
	}
	for _, path := range exclude {
		dropPath(v, strings.Split(path, "."))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// dropPath removes the members on path from v, through arrays as CanonicalJSON does.
func dropPath(v any, path []string) {
	switch v := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			delete(v, path[0])
		} else if sub, ok := v[path[0]]; ok {
			dropPath(sub, path[1:])
		}
	case []any:
		for _, e := range v {
			dropPath(e, path)
		}
	}
}

// TestCanonicalTiesApart: names whose sort keys tie in their first 7 bytes, with up to 30
// members between them, in and out of order, and as a duplicate.
func TestCanonicalTiesApart(t *testing.T) {
	t.Parallel()
	for gap := range 31 {
		var between []string
		for i := range gap {
			between = append(between, fmt.Sprintf(`"b%02d":%d`, i, i))
		}
		join := func(members ...string) string {
			return "{" + strings.Join(slices.DeleteFunc(members, func(m string) bool { return m == "" }), ",") + "}"
		}
		mid := strings.Join(between, ",")
		for _, tc := range []struct{ body, want string }{
			{join(`"abcdefgi":0`, mid, `"abcdefgh":1`), join(`"abcdefgh":1`, `"abcdefgi":0`, mid)},
			{join(`"abcdefgi":0`, mid, `"abcdefgh":1`, `"abcdefg":2`), join(`"abcdefg":2`, `"abcdefgh":1`, `"abcdefgi":0`, mid)},
			{join(`"abcdefgh":0`, mid, `"abcdefgh":1`), ""},
			{join(`"abcdefgh":0`, mid, `"abcdefgi":1`, `"abcdefgh":2`), ""},
		} {
			got, err := CanonicalJSON([]byte(tc.body), nil)
			if tc.want == "" {
				if !errors.Is(err, ErrNotIJSON) {
					t.Errorf("%s: error %v, want ErrNotIJSON", tc.body, err)
				}
			} else if err != nil || string(got) != tc.want {
				t.Errorf("%s:\n got %s, %v\nwant %s", tc.body, got, err, tc.want)
			}
		}
	}
}
