package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/rules"
)

func TestRulesList(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "rules")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	checks := rules.Default().Checks
	if len(checks) == 0 || len(lines) != len(checks)+1 || !strings.HasPrefix(lines[0], "NAME") {
		t.Fatalf("want a header and %d checks:\n%s", len(checks), stdout)
	}
	for i, c := range checks {
		if f := strings.Fields(lines[i+1]); len(f) < 2 || f[0] != c.ID || !strings.HasSuffix(lines[i+1], c.Title) {
			t.Errorf("line %q, want %s and its title %q", lines[i+1], c.ID, c.Title)
		}
	}
	if !strings.Contains(stderr, "idemkit rules NAME") {
		t.Errorf("stderr should say how to read one: %q", stderr)
	}
	if _, ttyOut, _ := run(t, t.TempDir(), "", true, nil, "rules"); ttyOut != stdout {
		t.Errorf("the list differs on a terminal:\n%s\n---\n%s", ttyOut, stdout)
	}
}

func TestRulesExplain(t *testing.T) {
	t.Parallel()
	c, ok := rules.Default().Check("checkthenact")
	if !ok {
		t.Fatal("the catalogue has no checkthenact")
	}
	firstBad, _, _ := strings.Cut(strings.TrimSpace(c.Bad), "\n")
	firstGood, _, _ := strings.Cut(strings.TrimSpace(c.Good), "\n")
	cases := []struct {
		name string
		tty  bool
		want []string // in order
	}{
		// Piped, it is markdown to save or feed to another tool.
		{"piped", false, []string{"# checkthenact: " + c.Title, "## Reported", "```go\n" + firstBad, "## Instead", "```go\n" + firstGood, "//idemkit:ignore checkthenact"}},
		// On a terminal glamour renders it, wrapped to the width: no code
		// fences left, and only the start of a long line on one line.
		{"terminal", true, []string{"checkthenact: " + c.Title, "Reported", firstBad[:min(len(firstBad), 30)], "Instead", firstGood[:min(len(firstGood), 30)]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, t.TempDir(), "", tc.tty, nil, "rules", "checkthenact")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			out := stdout
			if tc.tty {
				out = ansi.ReplaceAllString(stdout, "")
				if strings.Contains(out, "```") {
					t.Errorf("markdown left unrendered:\n%s", out)
				}
			}
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (or has it out of order):\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

func TestRulesBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"unknown check", []string{"rules", "checkthenac"}, []string{`no check or system named "checkthenac" (did you mean checkthenact?)`, "checkthenact, attemptkey, releaseonerror, cacheresponse", "idemkit rules --systems"}},
		{"misspelt system", []string{"rules", "Strype"}, []string{`no check or system named "Strype" (did you mean stripe`, "idemkit rules --systems"}},
		{"sender or target", []string{"rules", "Checkout.com"}, []string{`"Checkout.com" could be the sender checkout-com`, "or the target checkout-api", "write the ID"}},
		{"two targets", []string{"rules", "Plaid"}, []string{`target "Plaid" could be any of plaid-bank-transfer`, "plaid-transfer-authorization", "write the ID"}},
		{"systems and a name", []string{"rules", "--systems", "stripe"}, []string{"--systems lists every system", "idemkit rules stripe"}},
		{"missing rules file", []string{"rules", "--systems", "--rules", "gone.yaml"}, []string{"gone.yaml"}},
		{"two names", []string{"rules", "checkthenact", "attemptkey"}, []string{"accepts at most 1 arg(s)"}},
		{"unknown flag", []string{"rules", "--all"}, []string{"unknown flag: --all"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, t.TempDir(), "", false, nil, tc.args...)
			if code != ExitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestRulesSystems lists the catalogue's systems: every provider with its
// window, what that is and its page, then every target with what it does
// with a repeat; a number not checked against the docs is marked.
func TestRulesSystems(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "rules", "--systems")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cat := rules.Default()
	providers, targets, ok := strings.Cut(stdout, "\n\n")
	if !ok {
		t.Fatalf("want two tables separated by a blank line:\n%s", stdout)
	}
	plines := strings.Split(strings.TrimSpace(providers), "\n")
	tlines := strings.Split(strings.TrimSpace(targets), "\n")
	if len(plines) != len(cat.Providers)+1 || !strings.HasPrefix(plines[0], "SYSTEM") {
		t.Fatalf("want a header and %d providers, got %d lines", len(cat.Providers), len(plines))
	}
	if len(tlines) != len(cat.Targets)+1 || !strings.HasPrefix(tlines[0], "TARGET") {
		t.Fatalf("want a header and %d targets, got %d lines", len(cat.Targets), len(tlines))
	}
	for _, tt := range []struct {
		lines []string
		want  []string // the fields of one row
	}{
		{plines, []string{"stripe", "webhook", "3d", "retry-schedule", "https://docs.stripe.com/webhooks/process-undelivered-events"}},
		{plines, []string{"sqs-fifo", "queue", "14d", "retention", "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html"}},
		{plines, []string{"rabbitmq", "queue", "unbounded", "retention", "https://www.rabbitmq.com/docs/quorum-queues#poison-message-handling"}},
		{plines, []string{"hubspot", "webhook", "1d*", "retry-schedule", "https://developers.hubspot.com/changelog/2018-12-10-updated-webhook-retry-logic"}},
		{tlines, []string{"stripe-api", "key", "header", "Idempotency-Key", "1d", "https://docs.stripe.com/api/idempotent_requests"}},
		{tlines, []string{"paypal-api", "key", "header", "PayPal-Request-Id", "unpublished", "https://developer.paypal.com/api/rest/reference/idempotency/"}},
		{tlines, []string{"sendgrid-mail", "none", "-", "-", "https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send"}},
	} {
		found := false
		for _, l := range tt.lines {
			if f := strings.Fields(l); len(f) > 0 && f[0] == tt.want[0] {
				found = true
				if !slices.Equal(f, tt.want) {
					t.Errorf("row %q, want %q", f, tt.want)
				}
			}
		}
		if !found {
			t.Errorf("no row for %s", tt.want[0])
		}
	}
	if !strings.Contains(stderr, "* not every number") {
		t.Errorf("stderr should explain the * mark: %q", stderr)
	}
	if _, ttyOut, _ := run(t, t.TempDir(), "", true, nil, "rules", "--systems"); ttyOut != stdout {
		t.Errorf("the list differs on a terminal")
	}
}

// TestRulesSystemsWithOverrides shows a team's own provider and its
// changed window in the list.
func TestRulesSystemsWithOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n")
	writeFile(t, filepath.Join(dir, ".idemkit.yaml"), `providers:
  - id: stripe
    retry_window: 96h
  - id: acme-billing
    name: Acme billing webhooks
    kind: webhook
    source: webhook
    key_field: header X-Acme-Event
    key_example: ev_123
    retries: true
    retry_window: 2d
    suggested_ttl: 4d
    bound: Acme retries for two days.
    reference: https://acme.example/docs/webhooks
`)
	code, stdout, stderr := run(t, dir, "", false, nil, "rules", "--systems")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range [][]string{
		{"stripe", "webhook", "4d", "retry-schedule"},
		{"acme-billing", "webhook", "2d", "-", "https://acme.example/docs/webhooks"},
	} {
		if !slices.ContainsFunc(strings.Split(stdout, "\n"), func(l string) bool {
			f := strings.Fields(l)
			return len(f) >= len(want) && slices.Equal(f[:len(want)], want)
		}) {
			t.Errorf("no row starting %q:\n%s", want, stdout)
		}
	}
	writeFile(t, filepath.Join(dir, ".idemkit.yaml"), "providers:\n  - id: stripe\n    retry_window: 3 days\n")
	if code, _, stderr := run(t, dir, "", false, nil, "rules", "--systems"); code != ExitUsage || !strings.Contains(stderr, ".idemkit.yaml:3") {
		t.Errorf("a broken .idemkit.yaml: exit %d, stderr %q; want 2 naming the line", code, stderr)
	}
}

// TestRulesExplainSystem explains a provider and a target, piped as
// markdown.
func TestRulesExplainSystem(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		want []string // in order
	}{
		{"adyen", []string{"# adyen: Adyen webhooks", "## Key", "`{psp_reference}:{event_code}`", "a batch (`/notificationItems`)",
			"- `psp_reference`: body `/NotificationRequestItem/pspReference`", "## Retry window", "30d: the end of Adyen's retry queue", "Suggested key TTL: 60d",
			"**Often quoted otherwise.**", "any successful status code", "Source: https://docs.adyen.com/development-resources/webhooks/troubleshoot"}},
		{"sqs-fifo", []string{"# sqs-fifo", "MessageDeduplicationId", "14d", "a setting of yours", "5-minute deduplication interval is the producer's",
			"**Often quoted otherwise.**", "## Leave out of the hash", "record `ReceiptHandle`"}},
		{"salesforce", []string{"# salesforce", "a batch (`/Envelope/Body/notifications/Notification`)", "## Delivery", "The body is xml, not JSON",
			"<Ack>true</Ack>", "(text/xml)", "sforce_api_om_outboundmessaging_wsdl.htm"}},
		{"hubspot", []string{"# hubspot", "**Not checked against the docs.**", "Source: https://developers.hubspot.com/changelog/2018-12-10-updated-webhook-retry-logic"}},
		{"stripe-api", []string{"# stripe-api: Stripe API (POST requests)", "Honours an idempotency key sent in header Idempotency-Key, remembered for 1d.",
			"## Mechanism: The target's idempotency key", "Source: https://docs.stripe.com/api/idempotent_requests"}},
		{"slack-chat", []string{"# slack-chat", "Does not deduplicate: it performs every call it receives.", "## Mechanism: An audit-log guard row"}},
		// Names as people write them, and what a repeat gets.
		{"GoCardless API", []string{"# gocardless-api", "A repeat with the same key is refused with 409 Conflict"}},
		{"gocardless webhooks", []string{"# gocardless: GoCardless webhooks"}},
		{"Stripe API", []string{"# stripe-api", "A repeat with the same key gets the first call's result back."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "rules", tt.name)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			rest := stdout
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("output lacks %q (or has it out of order):\n%s", w, stdout)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}
