package rules

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindProvider(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		name  string
		kinds []string
		want  string
	}{
		{"stripe", nil, "stripe"},
		{"Stripe", nil, "stripe"},
		{"  STRIPE ", nil, "stripe"},
		{"Stripe webhooks", nil, "stripe"},
		{"stripe_webhooks", nil, "stripe"},
		{"stripe-api", nil, "stripe"},
		{"Stripe API", nil, "stripe"},
		{"checkout", nil, "checkout-com"},
		{"Checkout.com", nil, "checkout-com"},
		{"checkout_com", nil, "checkout-com"},
		{"Checkout.com webhooks", nil, "checkout-com"},
		{"GoCardless", nil, "gocardless"},
		{"go-cardless", nil, "gocardless"},
		{"Clerk", nil, "clerk"},
		{"svix", nil, "svix"},
		{"Amazon SQS FIFO", nil, "sqs-fifo"},
		{"SQS FIFO queue", nil, "sqs-fifo"},
		{"twilio", nil, "twilio"},
		{"Twilio SendGrid", nil, "sendgrid"},
		{"Slack Events API", nil, "slack"},
		{"Step Functions", nil, "step-functions"},
		{"Kubernetes CronJob", nil, "kubernetes-cronjob"},
		// One match of the kind asked for settles it.
		{"eventbridge", []string{KindCron}, "eventbridge"},
		{"EventBridge Scheduler", nil, "eventbridge-scheduler"},
		{"Amazon EventBridge", nil, "eventbridge"},
		{"Amazon", []string{KindCron}, "eventbridge-scheduler"},
		{"SQS", []string{KindWebhook, KindQueue}, ""},
	} {
		p, err := c.FindProvider(tt.name, tt.kinds...)
		if tt.want == "" {
			// Two of the kinds asked for: still ambiguous.
			if err == nil {
				t.Errorf("FindProvider(%q, %v) = %s; want ambiguous", tt.name, tt.kinds, p.ID)
			}
			continue
		}
		if err != nil || p.ID != tt.want {
			t.Errorf("FindProvider(%q, %v) = %v, %v; want %s", tt.name, tt.kinds, idOf(p, func(p Provider) string { return p.ID }), err, tt.want)
		}
	}
	// Several of the kinds asked for: the error offers only those.
	var ne *NameError
	if _, err := c.FindProvider("Amazon", KindQueue); !errors.As(err, &ne) || len(ne.Matches) != 4 || strings.Contains(err.Error(), "eventbridge-scheduler") {
		t.Errorf("FindProvider(Amazon, queue): %v; want the four Amazon queues only", err)
	}
	if p, _ := c.FindProvider("Stripe webhooks"); p != &c.Providers[0] {
		t.Error("FindProvider returns a copy; it should point into the catalogue")
	}
}

func TestFindProviderRefuses(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct {
		name string
		// ambiguous lists the IDs the error must offer; near the IDs it
		// must suggest for a name that matches none.
		ambiguous, near []string
	}{
		{name: "sqs", ambiguous: []string{"sqs-fifo", "sqs-standard"}},
		{name: "Amazon", ambiguous: []string{"sqs-fifo", "sqs-standard", "sns", "eventbridge", "eventbridge-scheduler"}},
		{name: "EventBridge rules", near: []string{"eventbridge", "eventbridge-scheduler"}},
		{name: "azure", ambiguous: []string{"azure-service-bus", "azure-event-grid"}},
		{name: "strype", near: []string{"stripe"}},
		{name: "Strip", near: []string{"stripe"}},
		{name: "gocardles", near: []string{"gocardless"}},
		{name: "checkout-api-v2", near: []string{"checkout-com"}},
		{name: "fax machine"},
		{name: ""},
		{name: "webhooks"},
		{name: "()"},
	} {
		p, err := c.FindProvider(tt.name)
		var ne *NameError
		if p != nil || !errors.As(err, &ne) {
			t.Errorf("FindProvider(%q) = %v, %v; want a *NameError", tt.name, p, err)
			continue
		}
		if ne.Ambiguous() != (len(tt.ambiguous) > 0) || errors.Is(err, ErrUnknownRef) == ne.Ambiguous() {
			t.Errorf("FindProvider(%q): %v; ambiguous %v, want %v", tt.name, err, ne.Ambiguous(), len(tt.ambiguous) > 0)
		}
		for _, id := range append(tt.ambiguous, tt.near...) {
			if !strings.Contains(err.Error(), id) {
				t.Errorf("FindProvider(%q): %v; want it to name %s", tt.name, err, id)
			}
		}
		if len(tt.ambiguous) > 0 && (len(ne.Matches) != len(tt.ambiguous) || !strings.Contains(err.Error(), "write the ID")) {
			t.Errorf("FindProvider(%q): %v; want exactly %v and how to pick one", tt.name, err, tt.ambiguous)
		}
		if len(tt.near) == 0 && len(ne.Near) > 0 && len(tt.ambiguous) == 0 {
			t.Errorf("FindProvider(%q) suggests %v; nothing is near it", tt.name, ne.Near)
		}
	}
}

func TestNameErrorMessages(t *testing.T) {
	t.Parallel()
	c := Default()
	for name, want := range map[string]string{
		"strype":      `unknown provider "strype" (did you mean stripe?)`,
		"fax machine": `unknown provider "fax machine"`,
		"sqs":         `provider "sqs" could be any of sqs-standard (Amazon SQS standard queue), sqs-fifo (Amazon SQS FIFO queue); write the ID of the one you mean`,
	} {
		if _, err := c.FindProvider(name); err == nil || err.Error() != want {
			t.Errorf("FindProvider(%q): %v\nwant %s", name, err, want)
		}
	}
}

func TestFindTarget(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, tt := range []struct{ name, want, ambiguous string }{
		{name: "stripe-api", want: "stripe-api"},
		{name: "stripe", want: "stripe-api"},
		{name: "Stripe API", want: "stripe-api"},
		{name: "Stripe API (POST requests)", want: "stripe-api"},
		{name: "GoCardless", want: "gocardless-api"},
		{name: "gocardless_api", want: "gocardless-api"},
		{name: "Checkout.com", want: "checkout-api"},
		{name: "checkout", want: "checkout-api"},
		{name: "SendGrid", want: "sendgrid-mail"},
		{name: "Twilio SendGrid", want: "sendgrid-mail"},
		{name: "Mercury", want: "mercury-api"},
		{name: "Amazon SQS FIFO", want: "sqs-fifo-send"},
		{name: "kafka", want: "kafka-produce"},
		{name: "Salesforce", want: "salesforce-upsert"},
		{name: "plaid", ambiguous: "plaid-bank-transfer, plaid-transfer-authorization"},
		{name: "Amazon SQS", ambiguous: "sqs-fifo-send"},
		{name: "fifo", ambiguous: "sns-fifo-publish"},
		{name: "twilio", ambiguous: "twilio-messages"},
	} {
		got, err := c.FindTarget(tt.name)
		switch {
		case tt.ambiguous != "":
			var ne *NameError
			if !errors.As(err, &ne) || !ne.Ambiguous() || !containsAll(err.Error(), strings.Split(tt.ambiguous, ", ")) {
				t.Errorf("FindTarget(%q) = %v, %v; want ambiguous among %s", tt.name, idOf(got, func(t Target) string { return t.ID }), err, tt.ambiguous)
			}
		case err != nil || got.ID != tt.want:
			t.Errorf("FindTarget(%q) = %v, %v; want %s", tt.name, idOf(got, func(t Target) string { return t.ID }), err, tt.want)
		}
	}
	for _, name := range []string{"warehouse API", "payment events table", "our ledger", "stripe-apl"} {
		if got, err := c.FindTarget(name); err == nil {
			t.Errorf("FindTarget(%q) = %s; want none", name, got.ID)
		}
	}
	if _, err := c.FindTarget("stripe-apl"); err == nil || !strings.Contains(err.Error(), "did you mean stripe-api") {
		t.Errorf("FindTarget(stripe-apl): %v; want stripe-api suggested", err)
	}
}

// Every entry is found by its own ID and its own name: a name that two
// entries share, or an ID another's name folds to, would make it
// unreachable by words.
func TestFindByOwnName(t *testing.T) {
	t.Parallel()
	c := Default()
	for _, p := range c.Providers {
		for _, name := range []string{p.ID, p.Name, strings.ToUpper(p.Name)} {
			if got, err := c.FindProvider(name); err != nil || got.ID != p.ID {
				t.Errorf("FindProvider(%q) = %v, %v; want %s", name, idOf(got, func(p Provider) string { return p.ID }), err, p.ID)
			}
		}
	}
	for _, tg := range c.Targets {
		for _, name := range []string{tg.ID, tg.Name} {
			if got, err := c.FindTarget(name); err != nil || got.ID != tg.ID {
				t.Errorf("FindTarget(%q) = %v, %v; want %s", name, idOf(got, func(t Target) string { return t.ID }), err, tg.ID)
			}
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"stripe", "stripe", 0}, {"strype", "stripe", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzFindName feeds arbitrary names to FindProvider and FindTarget: they
// never panic, find an entry or say why not, and whatever they find, the
// entry's own ID finds again.
func FuzzFindName(f *testing.F) {
	for _, s := range []string{"stripe", "Checkout.com", "sqs", "strype", "", "(((", "Stripe API (POST", "ÄÖ webhooks", "\x00", "api api"} {
		f.Add(s)
	}
	c := Default()
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) {
			return
		}
		p, err := c.FindProvider(name)
		var ne *NameError
		switch {
		case err == nil:
			if again, err := c.FindProvider(p.ID); err != nil || again != p {
				t.Fatalf("FindProvider(%q) = %s, but its ID finds %v, %v", name, p.ID, again, err)
			}
		case !errors.As(err, &ne):
			t.Fatalf("FindProvider(%q): %v is not a *NameError", name, err)
		}
		tg, err := c.FindTarget(name)
		if err == nil {
			if again, err := c.FindTarget(tg.ID); err != nil || again != tg {
				t.Fatalf("FindTarget(%q) = %s, but its ID finds %v, %v", name, tg.ID, again, err)
			}
		} else if !errors.As(err, &ne) {
			t.Fatalf("FindTarget(%q): %v is not a *NameError", name, err)
		}
	})
}

// The repeat answers are what each target's note says; a note that does
// not say leaves repeat out rather than assume a replay.
func TestTargetRepeats(t *testing.T) {
	t.Parallel()
	c := Default()
	for id, want := range map[string]string{
		"stripe-api":                   RepeatFirstResult,
		"checkout-api":                 RepeatFirstResult,
		"dwolla-api":                   RepeatFirstResult,
		"modern-treasury-api":          RepeatFirstResult,
		"paypal-api":                   RepeatCurrentState,
		"gocardless-api":               RepeatConflict,
		"mercury-api":                  RepeatConflict,
		"sqs-fifo-send":                RepeatAccepted,
		"nats-jetstream-publish":       RepeatAccepted,
		"airwallex-api":                "",
		"mollie-api":                   "",
		"brex-api":                     "",
		"wise-transfers":               "",
		"chargebee-api":                "",
		"lob-api":                      "",
		"plaid-transfer-authorization": "",
		"sendgrid-mail":                "",
		"temporal-start":               "",
	} {
		tg, ok := c.Target(id)
		if !ok {
			t.Errorf("no target %s", id)
			continue
		}
		if tg.Repeat != want {
			t.Errorf("%s: repeat %q, want %q", id, tg.Repeat, want)
		}
	}
	for _, tg := range c.Targets {
		if tg.Repeat == RepeatConflict && !strings.Contains(tg.Note, "409") {
			t.Errorf("%s: repeat conflict, but its note names no 409", tg.ID)
		}
	}
}

func TestNameSays(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"Stripe webhooks", "provider"},
		{"GitHub Webhook", "provider"},
		{"GoCardless API", "target"},
		{"stripe-api", "target"},
		{"Checkout.com", ""},
		{"rapid", ""}, // a word holding "api" is not the word
	} {
		if got := NameSays(tt.name); got != tt.want {
			t.Errorf("NameSays(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
