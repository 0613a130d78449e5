package rules

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckKeyFormat holds the key-per-user rule in every spelling: a key
// that says who acts, and maybe when, but not what they do, is refused; a
// key with any part naming the action passes.
func TestCheckKeyFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		format string
		is     error // nil: accepted
	}{
		{"transfer:{user_id}", ErrIdentityKey},
		{"{tenant_id}:{user_id}", ErrIdentityKey},
		{"{user_id}:{date}", ErrIdentityKey},
		{"{user_id}", ErrIdentityKey},
		{"{userId}", ErrIdentityKey},
		{"{UserID}:{today}", ErrIdentityKey},
		{"payout-{account.id}", ErrIdentityKey},
		{"{event.user_id}:{created_at}", ErrIdentityKey},
		{"{sha256(user_id)}", ErrIdentityKey},
		{"{user_id|lower}-{yyyymmdd}", ErrIdentityKey},
		{"${customer_id}", ErrIdentityKey},
		{"{{.TenantID}}:{{.UserID}}", ErrIdentityKey},
		{"<user_id>:<value_date>", ErrIdentityKey},
		{"%(user_id)s", ErrIdentityKey},
		{"{email}", ErrIdentityKey},
		{"{session_id}:{timestamp}", ErrIdentityKey},
		{"transfer", ErrConstantKey},
		{"user_id", ErrConstantKey},
		{"", ErrConstantKey},
		{strings.Repeat("{a}", 100), ErrTooLong},

		{"{uuid}", nil},
		{"{provider}:{event_id}", nil},
		{"{queue}:{message_id}", nil},
		{"{workflow_id}:{step}:{param}", nil},
		{"{job}:{slot}", nil},
		{"{tenant_id}:{idempotency_key}", nil},
		{"{run}:{customer_id}", nil},
		{"{user_id}:{order_id}", nil},
		{"refund:{order_id}:{reason}", nil},
		{"{email_id}", nil}, // a message's ID, not a person
		{"{job}:{business_date}", nil},
	} {
		err := CheckKeyFormat(tt.format)
		switch {
		case tt.is == nil && err != nil:
			t.Errorf("%q refused: %v", tt.format, err)
		case tt.is != nil && !errors.Is(err, tt.is):
			t.Errorf("%q: got %v, want %v", tt.format, err, tt.is)
		}
	}
}

// TestCheckKeyFormatMessage checks that the refusal names the parts and
// the fix.
func TestCheckKeyFormatMessage(t *testing.T) {
	t.Parallel()
	err := CheckKeyFormat("{tenant_id}:{user_id}:{date}")
	want := `the key names who acts but not what they do: "{tenant_id}:{user_id}:{date}" is made of {tenant_id}, {user_id} and nothing that names the action`
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "key-per-user") {
		t.Errorf("got %v\nwant it to start %s", err, want)
	}
}

func TestCheckHeaderName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, want string // want: "" accepted, else in the message
	}{
		{"Idempotency-Key", ""},
		{"X-GitHub-Delivery", ""},
		{"webhook-id", ""},
		{"Idempotency Key", "has a space"},
		{"Idempotency-Key:", "has a colon"},
		{"", "empty"},
		{"Idempotency\tKey", "control character"},
		{"Clé", `'é'`},
		{strings.Repeat("X", 129), "129 bytes, at most 128"},
	} {
		err := CheckHeaderName(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.name, err)
		case tt.want != "" && (!errors.Is(err, ErrHeaderName) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: got %v, want ErrHeaderName saying %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckKeyPart(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, want string
	}{
		{"charge-card", ""},
		{"order.fulfil", ""},
		{"invoice_id", ""},
		{"charge:card", "has a ':', the separator of key parts"},
		{"charge card", "has a space"},
		{"", "empty"},
		{"  ", "empty"},
		{"a\nb", "control character"},
		{strings.Repeat("s", 129), "at most 128"},
	} {
		err := CheckKeyPart("step", tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.name, err)
		case tt.want != "" && (!errors.Is(err, ErrKeyPart) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: got %v, want ErrKeyPart saying %q", tt.name, err, tt.want)
		}
	}
}

func TestCheckTTL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want Duration
		is   error
	}{
		{"24h", MustDuration("24h"), nil},
		{"60d", MustDuration("60d"), nil},
		{"366d", MaxTTL, nil},
		{"36500d", 0, ErrTTLRange}, // a hundred years: forever in all but name
		{"367d", 0, ErrTTLRange},
		{"876000h", 0, ErrTTLRange},
		{"500ms", 0, ErrTTLRange},
		{"forever", 0, ErrForever},
		{"never", 0, ErrForever},
	} {
		d, err := CheckTTL(tt.in)
		if d != tt.want || !errors.Is(err, tt.is) || (tt.is == nil) != (err == nil) {
			t.Errorf("CheckTTL(%q) = %s, %v; want %s, %v", tt.in, d, err, tt.want, tt.is)
		}
	}
	if _, err := CheckTTL("36500d"); err == nil || !strings.Contains(err.Error(), "keys-forever") {
		t.Errorf("a 100-year TTL should be called keeping keys forever: %v", err)
	}
	if _, err := CheckTTL("3 days"); err == nil || errors.Is(err, ErrTTLRange) {
		t.Errorf("a bad duration should fail to parse, not be out of range: %v", err)
	}
}

func TestCheckDescriptionAndSteps(t *testing.T) {
	t.Parallel()
	if err := CheckDescription(strings.Repeat("a", MaxDescription)); err != nil {
		t.Errorf("a description at the limit refused: %v", err)
	}
	err := CheckDescription(strings.Repeat("a", 1<<20))
	if !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "1048576 bytes, at most 4096") {
		t.Errorf("a 1 MB description: %v", err)
	}
	if err := CheckDescription("\xff"); err == nil {
		t.Error("invalid UTF-8 accepted")
	}
	if err := CheckSteps(MaxSteps); err != nil {
		t.Errorf("%d steps refused: %v", MaxSteps, err)
	}
	if err := CheckSteps(5000); !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), "5000, at most 50") {
		t.Errorf("5,000 steps: %v", err)
	}
}

func TestCheckLocation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		l    Location
		want string
	}{
		{Location{Kind: LocationHeader, Name: "X-GitHub-Delivery"}, ""},
		{Location{Kind: LocationBody, Name: "/id"}, ""},
		{Location{Kind: LocationBody, Name: "/data/a~1b/~0c"}, ""},
		{Location{Kind: LocationAttribute, Name: "MessageDeduplicationId"}, ""},
		{Location{Kind: LocationParameter, Name: "invoice_id"}, ""},
		{Location{Kind: LocationRecord, Name: "offset"}, ""},
		{Location{Kind: LocationBody, Name: "id"}, "must start with '/'"},
		{Location{Kind: LocationBody, Name: "/"}, "names the whole body"},
		{Location{Kind: LocationBody, Name: "/a~2"}, "'~' must be written ~0"},
		{Location{Kind: LocationHeader, Name: "Event Id"}, "has a space"},
		{Location{Kind: LocationRecord}, "needs a name"},
		{Location{Name: "x"}, "no kind"},
		{Location{Kind: "query", Name: "x"}, `kind "query" is not one of`},
	} {
		err := CheckLocation(tt.l)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%+v refused: %v", tt.l, err)
		case tt.want != "" && (!errors.Is(err, ErrLocation) || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%+v: got %v, want ErrLocation saying %q", tt.l, err, tt.want)
		}
	}
}

// TestClip keeps a long value out of messages.
func TestClip(t *testing.T) {
	t.Parallel()
	err := CheckHeaderName(strings.Repeat("é", 50))
	if err == nil || len(err.Error()) > 200 {
		t.Errorf("message not clipped: %v", err)
	}
}
