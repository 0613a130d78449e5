package design

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

// Providers and targets named the way people write them decide the same
// spec as their IDs, and the spec records the IDs: the provider's window
// bounds the TTL, the target's record gives the step its dedup.
func TestDecideFindsNames(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct {
		name      string
		edit      func(*Answers)
		provider  string   // the spec's key.provider
		window    string   // the spec's ttl.window_source
		retriedBy []string // the spec's key.retried_by
		target    string   // the spec's downstream[0].target
	}{
		{name: "display name", edit: func(a *Answers) { a.Key.Provider = "Checkout.com" }, provider: "checkout-com", window: "checkout-com"},
		{name: "id with an underscore", edit: func(a *Answers) { a.Key.Provider = "checkout_com" }, provider: "checkout-com", window: "checkout-com"},
		{name: "one word of the name", edit: func(a *Answers) { a.Key.Provider = "checkout" }, provider: "checkout-com", window: "checkout-com"},
		{name: "camel case", edit: func(a *Answers) { a.Key.Provider = "GoCardless" }, provider: "gocardless", window: "gocardless"},
		{name: "name with its kind", edit: func(a *Answers) { a.Key.Provider = "Stripe webhooks" }, provider: "stripe", window: "stripe"},
		{name: "the API's name for its webhooks", edit: func(a *Answers) { a.Key.Provider = "stripe-api" }, provider: "stripe", window: "stripe"},
		{name: "queue by its name", edit: func(a *Answers) {
			a.Key = KeyAnswers{Source: "queue", Provider: "Amazon SQS FIFO"}
			a.Collision = CollisionAnswers{}
		}, provider: "sqs-fifo", window: "sqs-fifo"},
		{name: "retried_by by name", edit: func(a *Answers) {
			a.Key.RetriedBy = []string{"Internal HTTP retry policy", "internal-http", "User-driven retries"}
		}, provider: "stripe", window: "stripe", retriedBy: []string{"internal-http", "ui"}},
		{name: "target by name", edit: func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "payment", Target: "GoCardless", Mechanism: "provider-key"}}
		}, provider: "stripe", window: "stripe", target: "gocardless-api"},
		{name: "target by its full name", edit: func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "payment", Target: "Stripe API (POST requests)", Mechanism: "guard-row"}}
		}, provider: "stripe", window: "stripe", target: "stripe-api"},
		{name: "target the catalogue does not know", edit: func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "ledger", Target: "ledger service", Mechanism: "audit-log"}}
		}, provider: "stripe", window: "stripe", target: "ledger service"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "webhook", "events")
			tc.edit(&a)
			d, err := Decide(a, cat)
			if err != nil {
				t.Fatal(err)
			}
			k := d.Spec.Key
			if k.Provider != tc.provider || d.Spec.TTL.WindowSource != tc.window {
				t.Errorf("provider %q, window source %q; want %s, %s", k.Provider, d.Spec.TTL.WindowSource, tc.provider, tc.window)
			}
			if strings.Join(k.RetriedBy, ",") != strings.Join(tc.retriedBy, ",") {
				t.Errorf("retried_by %v, want %v", k.RetriedBy, tc.retriedBy)
			}
			if tc.target != "" && d.Spec.Downstream[0].Target != tc.target {
				t.Errorf("target %q, want %s", d.Spec.Downstream[0].Target, tc.target)
			}
			if tc.target == "gocardless-api" && !strings.Contains(d.Spec.Downstream[0].Dedup, "GoCardless API") {
				t.Errorf("the step does not read GoCardless's record: %s", d.Spec.Downstream[0].Dedup)
			}
		})
	}
}

// A name two entries share is refused with both; one that names none is
// refused with the IDs near it; neither is ever taken for a guess.
func TestDecideRefusesNames(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct {
		name  string
		edit  func(*Answers)
		field string
		want  []string
	}{
		{"ambiguous queue", func(a *Answers) {
			a.Key = KeyAnswers{Source: "queue", Provider: "sqs"}
			a.Collision = CollisionAnswers{}
		}, "key.provider", []string{`"sqs" could be any of`, "sqs-fifo", "sqs-standard", "write the ID"}},
		{"typo", func(a *Answers) { a.Key.Provider = "strype" }, "key.provider", []string{"unknown provider", "did you mean stripe?", "known providers for a webhook key", "github"}},
		{"typo of a display name", func(a *Answers) { a.Key.Provider = "GoCardles" }, "key.provider", []string{"did you mean gocardless?"}},
		{"nothing like it", func(a *Answers) { a.Key.Provider = "fax machine" }, "key.provider", []string{`unknown provider "fax machine"`, "known providers for a webhook key", "stripe"}},
		{"queue named for a webhook key", func(a *Answers) { a.Key.Provider = "Amazon SQS FIFO" }, "key.provider", []string{"sqs-fifo is a queue provider"}},
		{"ambiguous retried_by", func(a *Answers) { a.Key.RetriedBy = []string{"ui", "Amazon"} }, "key.retried_by[1]", []string{"could be any of", "sqs-fifo", "sns"}},
		{"unknown retried_by", func(a *Answers) { a.Key.RetriedBy = []string{"internal-htp"} }, "key.retried_by[0]", []string{"did you mean internal-http?"}},
		{"ambiguous target", func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "transfer", Target: "Plaid", Mechanism: "provider-key"}}
		}, "downstream[0].target", []string{"plaid-bank-transfer", "plaid-transfer-authorization", "write the ID"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "webhook", "events")
			tc.edit(&a)
			_, err := Decide(a, cat)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field != tc.field {
				t.Fatalf("Decide = %v; want an InputError on %s", err, tc.field)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}

// A target close to a catalogue ID, but not one, stays the engineer's
// words, with a note naming the ID it may have meant.
func TestDecideNotesANearTarget(t *testing.T) {
	t.Parallel()
	a := presetAnswers(t, "webhook", "events")
	a.Downstream = []StepAnswers{{Name: "charge", Target: "Stripe PaymentIntents", Mechanism: "guard-row"}}
	d, err := Decide(a, rules.Default())
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Spec.Downstream[0].Target; got != "Stripe PaymentIntents" {
		t.Errorf("target %q, want the words as written", got)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "downstream[0].target: \"Stripe PaymentIntents\" is no catalogue target") ||
		!strings.Contains(strings.Join(d.Notes, "\n"), "did you mean stripe-api?") {
		t.Errorf("no note suggests stripe-api: %q", d.Notes)
	}
}

// derive --source takes the provider as people write it too.
func TestProposeFieldsFindsProviderNames(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct{ source, provider, err string }{
		{"webhook:Stripe webhooks", "stripe", ""},
		{"webhook:GoCardless", "gocardless", ""},
		{"queue:Amazon SQS FIFO", "sqs-fifo", ""},
		{"webhook:strype", "", "did you mean stripe?"},
		{"queue:sqs", "", "could be any of"},
	} {
		p, err := ProposeFields([]byte(`{"id":"evt_1"}`), tc.source, cat)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ProposeFields(%s) = %v; want %q", tc.source, err, tc.err)
			}
		case err != nil || p.Provider != tc.provider:
			t.Errorf("ProposeFields(%s) = %q, %v; want %s", tc.source, p.Provider, err, tc.provider)
		}
	}
}

// A step's advice says what its target answers a repeat, as the catalogue
// records it, and promises nothing where the catalogue does not know.
func TestStepAdviceFollowsRepeat(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	for _, tc := range []struct {
		target, mechanism, repeat string
		says                      []string
		never                     []string
	}{
		{"stripe-api", "provider-key", "first-result", []string{"a repeat gets the first result back"}, []string{"409"}},
		{"gocardless-api", "provider-key", "conflict", []string{"409 Conflict", "already done, not as a failure", "looks the result up"}, []string{"first result back"}},
		{"mercury-api", "provider-key", "conflict", []string{"409 Conflict", "already done"}, []string{"first result back"}},
		{"paypal-api", "provider-key", "current-state", []string{"in its current state"}, []string{"first result back"}},
		{"airwallex-api", "provider-key", "", []string{"not recorded here", "read its documentation"}, []string{"first result back", "409 Conflict for"}},
		{"sqs-fifo-send", "message-id", "accepted", []string{"deduplication ID of Amazon SQS FIFO SendMessage", "accepted as a success and dropped"}, []string{"first result back"}},
		{"ledger service", "provider-key", "", []string{"What a repeat gets back is the target's own"}, []string{"a repeat gets the first result back"}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "payment", "charge")
			a.TTL = ""
			a.Downstream = []StepAnswers{{Name: "call", Target: tc.target, Mechanism: tc.mechanism}}
			d, err := Decide(a, cat)
			if err != nil {
				t.Fatal(err)
			}
			st := d.Spec.Downstream[0]
			if st.Repeat != tc.repeat {
				t.Errorf("repeat %q, want %q", st.Repeat, tc.repeat)
			}
			for _, w := range tc.says {
				if !strings.Contains(st.How, w) {
					t.Errorf("how %q\ndoes not say %q", st.How, w)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(st.How, w) {
					t.Errorf("how %q\nsays %q", st.How, w)
				}
			}
		})
	}
}

// A catalogue fact that could not be checked against the provider's or
// target's documentation is said so wherever the spec relies on it, once.
func TestDecideCarriesUnverified(t *testing.T) {
	t.Parallel()
	cat := rules.Default()
	const caveat = "Not checked against the documentation of "
	for _, tc := range []struct {
		name                     string
		edit                     func(*Answers)
		justification, key, step string // who each caveat names; empty for none
		noteAbout                string
	}{
		{name: "window of an unverified sender", edit: func(a *Answers) { a.Key.Provider = "razorpay" },
			justification: "Razorpay webhooks", noteAbout: "ttl:"},
		{name: "sender checked throughout", edit: func(a *Answers) { a.Key.Provider = "stripe" }},
		{name: "window from the answers, key from an unverified sender", edit: func(a *Answers) {
			a.Key.Provider, a.Key.Window, a.Key.WindowFrom = "bitbucket", "3d", "our replay tool"
		}, key: "Bitbucket Cloud webhooks", noteAbout: "key.provider:"},
		{name: "unverified target", edit: func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "collect", Target: "gocardless-api", Mechanism: "provider-key"}}
		}, step: "GoCardless API (create endpoints)", noteAbout: "downstream[0].target:"},
		{name: "checked target", edit: func(a *Answers) {
			a.Downstream = []StepAnswers{{Name: "charge", Target: "stripe-api", Mechanism: "guard-row"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a := presetAnswers(t, "webhook", "events")
			tc.edit(&a)
			d, err := Decide(a, cat)
			if err != nil {
				t.Fatal(err)
			}
			s := d.Spec
			step := ""
			if len(s.Downstream) > 0 {
				step = s.Downstream[0].Dedup
			}
			for _, c := range []struct{ where, text, want string }{
				{"ttl.justification", s.TTL.Justification, tc.justification},
				{"key.rationale", s.Key.Rationale, tc.key},
				{"downstream[0].dedup", step, tc.step},
			} {
				switch n := strings.Count(c.text, caveat); {
				case c.want == "" && n > 0:
					t.Errorf("%s has a caveat: %s", c.where, c.text)
				case c.want != "" && (n != 1 || !strings.Contains(c.text, caveat+c.want+": ")):
					t.Errorf("%s: want one caveat naming %s: %s", c.where, c.want, c.text)
				}
			}
			notes := strings.Join(d.Notes, "\n")
			if tc.noteAbout != "" && !strings.Contains(notes, tc.noteAbout+" the ") {
				t.Errorf("no note %s ... not checked: %q", tc.noteAbout, d.Notes)
			}
			if tc.noteAbout == "" && strings.Contains(notes, "not checked against") {
				t.Errorf("a note about unchecked facts where all were checked: %q", d.Notes)
			}
		})
	}
}
