package redisstore

import (
	"errors"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// done builds a completed value as the complete script does.
func done(ex int64, fp string, resp idem.Response) string {
	return "C" + strconv.FormatInt(ex, 10) + "|" + strconv.Itoa(len(fp)) + "|" + fp + string(completion(nil, resp))
}

func TestCompletedRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fp   string
		resp idem.Response
	}{
		{"empty", "fp", idem.Response{}},
		{"status only", "fp", idem.Response{Status: 204}},
		{"headers and body", strings.Repeat("f", 64), idem.Response{
			Status: 201,
			Header: http.Header{"Content-Type": {"application/json"}, "Set-Cookie": {"a=1", "b=2"}, "X-Empty": {""}},
			Body:   []byte(`{"id":"ch_1"}`),
		}},
		{"separators everywhere", "f|p|7|", idem.Response{
			Status: 200,
			Header: http.Header{"X|1|": {"|", "12|ab", ""}, "": {"no name"}},
			Body:   []byte("|3|abc\x00\xff"),
		}},
		{"a name without values", "fp", idem.Response{Status: 200, Header: http.Header{"X-None": {}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := done(1700000000123, tc.fp, tc.resp)
			rec, err := decodeDone("k", v, tc.fp, nil)
			if err != nil {
				t.Fatalf("decode %q: %v", v, err)
			}
			if rec.Fingerprint != tc.fp || rec.State != idem.StateCompleted || !rec.Expires.Equal(time.UnixMilli(1700000000123)) {
				t.Errorf("record = %+v", rec)
			}
			got := rec.Response
			if got.Status != tc.resp.Status || string(got.Body) != string(tc.resp.Body) || len(got.Header) != len(tc.resp.Header) {
				t.Errorf("response = %+v, want %+v", got, tc.resp)
			}
			for name, vs := range tc.resp.Header {
				if g := got.Header[name]; len(g) != len(vs) || (len(vs) > 0 && !reflect.DeepEqual(g, vs)) {
					t.Errorf("header %q = %q, want %q", name, g, vs)
				}
			}
			// A mismatching caller learns the stored fingerprint, not the response.
			m, err := decodeDone("k", v, "other", nil)
			if err != nil || m.Fingerprint != tc.fp || m.Response.Status != 0 || m.Response.Body != nil {
				t.Errorf("decode for another fingerprint = %+v, %v; want the fingerprint alone", m, err)
			}
		})
	}
}

func TestHeldValue(t *testing.T) {
	t.Parallel()
	v := inProgress("TOKEN", "f|p", 1000, 5000)
	if !strings.HasPrefix(v, heldPrefix("TOKEN")) || holder(v) != "TOKEN" {
		t.Fatalf("value %q does not start with the holder's prefix %q (holder %q)", v, heldPrefix("TOKEN"), holder(v))
	}
	now := time.UnixMilli(1_000_000)
	// 4200 ms left to live, the lease ends when 4000 are left: 200 ms of lease remain.
	rec, left, err := decodeHeld("k", v, 4200, now)
	if err != nil {
		t.Fatal(err)
	}
	if left != 200*time.Millisecond || !rec.LeaseExpires.Equal(now.Add(left)) || !rec.Expires.Equal(now.Add(4200*time.Millisecond)) {
		t.Errorf("lease left %v, record %+v; want 200ms left and expiry in 4.2s", left, rec)
	}
	if rec.Fingerprint != "f|p" || rec.State != idem.StateInProgress {
		t.Errorf("record = %+v, want in progress with fingerprint f|p", rec)
	}
}

func TestCorruptValues(t *testing.T) {
	t.Parallel()
	good := done(1, "fp", idem.Response{Status: 200, Header: http.Header{"A": {"b"}}, Body: []byte("x")})
	for _, v := range []string{
		"", "x", "C", "Cnot|2|fp", "C1|99|fp", "C1|2|fp200", "C1|2|fp200|1|1|", "C1|2|fp200|2|1|1|A1|1|b",
		"C1|2|fp200|1|1|1|A2|1|b", good[:len(good)-3], "C1|-2|fp",
	} {
		if _, err := decodeDone("k", v, "fp", nil); !errors.Is(err, errCorrupt) {
			t.Errorf("decodeDone(%q) = %v, want errCorrupt", v, err)
		}
	}
	for _, v := range []string{"", "C1|2|fp", "Ptoken", "Ptoken|x|fp", "Ptoken|1|"} {
		if _, _, err := decodeHeld("k", v, 1000, time.Now()); !errors.Is(err, errCorrupt) {
			t.Errorf("decodeHeld(%q) = %v, want errCorrupt", v, err)
		}
	}
}

// TestHeldClaimsBound: the remembered claims stay under maxHeldClaims; when full, records that
// have expired make room, and a claim that finds no room is simply not remembered (its Complete
// takes the longer script).
func TestHeldClaimsBound(t *testing.T) {
	t.Parallel()
	var h heldClaims
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	for i := range maxHeldClaims {
		expires := future
		if i%2 == 0 {
			expires = past
		}
		h.add(strconv.Itoa(i), "fp", "v", expires)
	}
	h.add("room", "fp-room", "v-room", future) // sweeps the expired half
	if fp, v, ok := h.take("room"); !ok || fp != "fp-room" || v != "v-room" {
		t.Fatalf("take(room) = %q, %q, %v; want the claim added once expired ones made room", fp, v, ok)
	}
	if _, _, ok := h.take("0"); ok {
		t.Error("an expired claim survived the sweep")
	}
	h.extended("1")
	if fp, v, ok := h.take("1"); !ok || fp != "fp" || v != "" {
		t.Errorf("take(1) = %q, %q, %v; want a live claim kept, its value forgotten by extended", fp, v, ok)
	}
	if _, _, ok := h.take("1"); ok {
		t.Error("take returned a claim twice")
	}
	for i := range maxHeldClaims {
		h.add("live"+strconv.Itoa(i), "fp", "v", future)
	}
	h.add("over", "fp", "v", future)
	if _, _, ok := h.take("over"); ok {
		t.Errorf("remembered a claim past the bound of %d live ones", maxHeldClaims)
	}
}

// TestBulkReply: the claim reads its reply raw; only a string or a nil is its to parse, anything
// else goes back to go-redis.
func TestBulkReply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw      string
		v        string
		null, ok bool
	}{
		{"_\r\n", "", true, true},
		{"$-1\r\n", "", true, true},
		{"$3\r\nabc\r\n", "abc", false, true},
		{"$0\r\n\r\n", "", false, true},
		{"$5\r\na\r\nbc\r\n", "a\r\nbc", false, true},
		{"-ERR wrong\r\n", "", false, false},
		{"-MOVED 3999 127.0.0.1:6381\r\n", "", false, false},
		{"!5\r\nERR x\r\n", "", false, false},
		{"+OK\r\n", "", false, false},
		{"$3\r\nab\r\n", "", false, false},
		{"$3\r\nabcd\r\n", "", false, false},
		{"$\r\n\r\n", "", false, false},
		{"$99999999999999999999\r\nab\r\n", "", false, false},
		{"_\r\n_\r\n", "", false, false},
		{"$3\r\nabc", "", false, false},
		{"", "", false, false},
	} {
		v, null, ok := bulkReply([]byte(tc.raw))
		if string(v) != tc.v || null != tc.null || ok != tc.ok {
			t.Errorf("bulkReply(%q) = %q, %v, %v; want %q, %v, %v", tc.raw, v, null, ok, tc.v, tc.null, tc.ok)
		}
	}
}

// TestDecodeDoneOwnsRaw: given the value's own bytes, the body is a slice of them, not a copy.
func TestDecodeDoneOwnsRaw(t *testing.T) {
	t.Parallel()
	raw := []byte(done(1, "fp", idem.Response{Status: 200, Body: []byte("body")}))
	rec, err := decodeDone("k", string(raw), "fp", raw)
	if err != nil || string(rec.Response.Body) != "body" {
		t.Fatalf("decodeDone = %+v, %v", rec, err)
	}
	if &rec.Response.Body[0] != &raw[len(raw)-4] {
		t.Error("the body is a copy of the value, not a slice of it")
	}
}
