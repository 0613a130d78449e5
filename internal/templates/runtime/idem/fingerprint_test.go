package idem

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestCanonicalJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		body    string
		exclude []string
		want    string
		err     error
	}{
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
		{name: "not JSON", body: `{"a":}`, err: ErrNotIJSON},
		{name: "duplicate names", body: `{"a":1,"a":2}`, err: ErrNotIJSON},
		{name: "trailing data", body: `{} {}`, err: ErrNotIJSON},
		{name: "lossy integer", body: `{"id":12345678901234567890}`, err: ErrNotIJSON},
		{name: "2^53+1", body: `[9007199254740993]`, err: ErrNotIJSON},
		{name: "overflow", body: `[1e400]`, err: ErrNotIJSON},
		{name: "underflow", body: `[1e-400]`, err: ErrNotIJSON},
		{name: "empty exclude entry", body: `{}`, exclude: []string{""}, err: ErrInvalid},
		{name: "empty exclude segment", body: `{}`, exclude: []string{"a..b"}, err: ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := CanonicalJSON([]byte(tc.body), tc.exclude)
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("CanonicalJSON(%s) error = %v, want %v", tc.body, err, tc.err)
			}
			if string(got) != tc.want {
				t.Errorf("CanonicalJSON(%s) = %s, want %s", tc.body, got, tc.want)
			}
		})
	}
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
// the cost the middleware pays on every request; the goal is at least 300 MB/s.
func BenchmarkFingerprint1K(b *testing.B) {
	b.SetBytes(int64(len(body1K)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Fingerprint("POST", "/charges", body1K, "application/json", []string{"timestamp"}); err != nil {
			b.Fatal(err)
		}
	}
}
