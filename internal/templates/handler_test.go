package templates

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// handlerCases are the specs under testdata/handler, one golden each: every key source as
// idemkit design writes it, and two variants that take the other branches of the templates (a
// custom header, no tenant, waiting on a claim, nested fields, an event ID in a header,
// replaying webhook answers, a business date in Europe/Berlin, hourly slots in Asia/Kolkata).
var handlerCases = []string{"client", "webhook", "queue", "workflow", "cron", "client-custom", "webhook-github", "client-body", "webhook-adyen", "webhook-hubspot", "cron-berlin", "cron-kolkata", "cron-newyork", "cron-chicago"}

// handlerOpts are the options the goldens are generated with.
func handlerOpts(name string) HandlerOptions {
	return HandlerOptions{
		Package:  strings.ReplaceAll(name, "-", ""),
		Runtime:  "example.com/app/internal/idem",
		SpecPath: "knowledge/projects/idempotency-" + name + ".md",
		Dir:      "internal/" + name,
		Version:  "test",
	}
}

func readSpec(t *testing.T, name string) *spec.Spec {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "handler", name+".md"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Parse(data)
	if err != nil {
		t.Fatalf("%s.md: %v", name, err)
	}
	return s
}

// handlerArchive renders a Handler as a txtar archive, the skeleton last.
func handlerArchive(h *Handler) []byte {
	ar := &txtar.Archive{Comment: fmt.Appendf(nil, "kind: %s\nwritten once: %s\n", h.Kind, h.WorkPath)}
	for _, p := range sortedKeys(h.Files) {
		ar.Files = append(ar.Files, txtar.File{Name: p, Data: h.Files[p]})
	}
	ar.Files = append(ar.Files, txtar.File{Name: h.WorkPath, Data: h.Work})
	return txtar.Format(ar)
}

// TestGenerateHandlerGoldens pins the code written for each kind of spec; TestGenerateHandlerBuilds
// proves the same output builds and passes its own tests.
func TestGenerateHandlerGoldens(t *testing.T) {
	t.Parallel()
	for _, name := range handlerCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := readSpec(t, name)
			h, err := GenerateHandler(s, handlerOpts(name))
			if err != nil {
				t.Fatal(err)
			}
			if h.Kind != s.Key.Source {
				t.Errorf("Kind %q, want the key source %q", h.Kind, s.Key.Source)
			}
			base := strings.ReplaceAll(s.Slug, "-", "_")
			want := []string{base + "_idem.go", base + "_idem_test.go"}
			if got := sortedKeys(h.Files); !slices.Equal(got, want) || h.WorkPath != base+"_work.go" {
				t.Errorf("files %v and %s, want %v and %s_work.go", got, h.WorkPath, want, base)
			}
			if !strings.Contains(string(h.Files[want[0]]), "\nfunc "+h.Constructor+"(") {
				t.Errorf("the wiring does not declare %s", h.Constructor)
			}
			for p, data := range h.Files {
				if st := Inspect(data); st != Intact {
					t.Errorf("%s is %v, want a headed, intact generated file", p, st)
				}
			}
			if st := Inspect(h.Work); st != NotGenerated {
				t.Errorf("the skeleton is %v, want it unmarked: it is the user's file", st)
			}
			again, err := GenerateHandler(s, handlerOpts(name))
			if err != nil || !bytes.Equal(handlerArchive(again), handlerArchive(h)) {
				t.Errorf("a second generation differs (%v): generation must be deterministic", err)
			}
			// golden keeps its files in testdata/generate; the handler's are beside their specs.
			golden(t, filepath.Join("..", "handler", name+".golden"), handlerArchive(h))
		})
	}
}

// TestGenerateHandlerFollowsSpec checks, on the generated source, the decisions a golden could
// pin by accident: each is a value of the spec that must reach the code.
func TestGenerateHandlerFollowsSpec(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want []string // in the wiring file
	}{
		{"client", []string{
			"chargeCardTTL = 24 * time.Hour", "chargeCardLease = 30 * time.Second", "chargeCardRetryAfter = 5 * time.Second",
			`var chargeCardExclude = []string{"timestamp", "request_id"}`,
			`Charge:       idem.Derive(parent, "charge")`, `RecordOrder:  idem.Derive(parent, "record-order")`,
			`ReceiptEmail: idem.Derive(parent, "receipt-email")`, "Tenant:  opts.Tenant,", "Exclude: chargeCardExclude,",
			"RetryAfter: chargeCardRetryAfter, Logger: opts.Logger}", "return chargeCardRecord(r.Context(), audit, chargeCardParent(k.Tenant, k.Key), resp.Status)",
			`idem.AuditEntry{Operation: "charge-card", Key: parent, Status: status}`,
		}},
		{"client-custom", []string{
			"Unscoped: true,", `Header:   "X-Request-Key",`, "importLedgerTTL = 2 * time.Hour",
			"importLedgerLease = 90 * time.Second", "importLedgerRetryAfter = 2 * time.Second",
			"Wait: importLedgerRetryAfter, RetryAfter: importLedgerRetryAfter, Logger: opts.Logger}",
			`var importLedgerExclude = []string{"meta.sent_at"}`,
		}},
		{"webhook", []string{`key := "stripe:" + id`, `[]string{"id"}`, "webhookExampleTTL = 7 * 24 * time.Hour", "w.WriteHeader(http.StatusOK)"}},
		{"webhook-github", []string{`key := "github:" + id`, `r.Header.Get("X-GitHub-Delivery")`, "w.Write(res.Response.Body)", `idem.Derive(parent, "status-check")`}},
		{"queue", []string{`return m.Queue + ":" + m.MessageID, nil`, "queueExampleTTL = 15 * 24 * time.Hour",
			"return idem.Response{}, queueExampleRecord(ctx, c.audit, key, 200)"}},
		{"workflow", []string{`return run.WorkflowID + ":charge-card:" + run.InvoiceID, nil`}},
		{"cron", []string{"cronExampleSlot = time.Hour", `return "hourly-rollup:" + slot.Format(time.RFC3339), slot`, `idem.Derive(parent, "write-rollup")`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := readSpec(t, tc.name)
			h, err := GenerateHandler(s, handlerOpts(tc.name))
			if err != nil {
				t.Fatal(err)
			}
			src := string(h.Files[strings.ReplaceAll(s.Slug, "-", "_")+"_idem.go"])
			for _, w := range tc.want {
				if !strings.Contains(src, w) {
					t.Errorf("the wiring lacks %q", w)
				}
			}
		})
	}
}

// TestGenerateHandlerPayloads checks what a delivery that is not JSON gets: a key read from a
// header (Twilio's form posts) is generated as usual, and a batched queue delivery (Event Grid's
// array) says in the consumer's docs that the adapter splits it into messages.
func TestGenerateHandlerPayloads(t *testing.T) {
	t.Parallel()
	s := readSpec(t, "webhook-github")
	s.Key.Payload = "form"
	s.Hash.Include, s.Hash.Exclude = nil, nil
	if _, err := GenerateHandler(s, handlerOpts("form")); err != nil {
		t.Errorf("a header key of a form delivery: %v", err)
	}
	q := readSpec(t, "queue")
	q.Key.Batch, q.Key.In, q.Key.Name, q.Key.Parts = true, "body", "/id", []spec.KeyPart{{Part: "message_id", In: "body", Name: "/id"}}
	h, err := GenerateHandler(q, handlerOpts("batched"))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range h.Files {
		if strings.HasSuffix(name, "_idem.go") && !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(string(src), "//", "")), " "), "Your adapter splits it into one") {
			t.Errorf("%s does not say that the adapter splits a batched delivery into messages:\n%s", name, src)
		}
	}
}

// TestGenerateHandlerRuntimeAlias: a runtime whose core package is not named idem is imported
// under that name, so the code reads the same for every user.
func TestGenerateHandlerRuntimeAlias(t *testing.T) {
	t.Parallel()
	cases := []struct {
		runtime, pkg, want string
	}{
		{"example.com/app/internal/idem", "", `"example.com/app/internal/idem"`},
		{"example.com/app/internal/dedup", "", `idem "example.com/app/internal/dedup"`},
		{"example.com/app/internal/keys", "idem", `"example.com/app/internal/keys"`},
		{"example.com/app/v2", "", `idem "example.com/app/v2"`},
	}
	for _, tc := range cases {
		opts := handlerOpts("cron")
		opts.Runtime, opts.RuntimePackage = tc.runtime, tc.pkg
		h, err := GenerateHandler(readSpec(t, "cron"), opts)
		if err != nil {
			t.Fatal(err)
		}
		for p, data := range h.Files {
			if !strings.Contains(string(data), "\n\t"+tc.want+"\n") {
				t.Errorf("%s (%s, package %q) does not import %s", p, tc.runtime, tc.pkg, tc.want)
			}
		}
	}
}

func TestGenerateHandlerBadInput(t *testing.T) {
	t.Parallel()
	edit := func(name string, f func(*spec.Spec)) func(*testing.T) *spec.Spec {
		return func(t *testing.T) *spec.Spec {
			s := readSpec(t, name)
			f(s)
			return s
		}
	}
	cases := []struct {
		name  string
		spec  func(*testing.T) *spec.Spec
		opts  func(*HandlerOptions)
		field string // the field the error names
		want  string
		is    error
	}{
		{name: "missing slug", spec: edit("client", func(s *spec.Spec) { s.Slug = "" }), field: "slug", want: "empty slug"},
		{name: "lease outlives ttl", spec: edit("queue", func(s *spec.Spec) { s.TTL.Lease = s.TTL.Duration * 2 }), field: "ttl.lease", want: "outlives"},
		{name: "newer schema", spec: edit("cron", func(s *spec.Spec) { s.Schema = spec.SchemaVersion + 1 }), field: "schema", is: spec.ErrNewerSchema},
		{name: "key field not header or body", spec: edit("webhook", func(s *spec.Spec) {
			s.Key.Field = "body NotificationRequestItem pspReference + eventCode (a pspReference recurs)"
		}), field: "key.field", want: `want "header NAME" or "body FIELD"`},
		{name: "client key from an attribute", spec: edit("client", func(s *spec.Spec) { s.Key.In, s.Key.Name, s.Key.Missing = "attribute", "key", "400" }), field: "key.in", want: "request header or a body field"},
		{name: "client body key through a dotted name", spec: edit("client-body", func(s *spec.Spec) { s.Key.Name = "/meta.key" }), field: "key.name", want: "without '.'"},
		{name: "batch part named like an Event field", spec: edit("webhook-hubspot", func(s *spec.Spec) {
			s.Key.Parts[0].Part, s.Key.Format = "item", "{provider}:{item}"
		}), field: "key.parts[0].part", want: "Event field Item"},
		{name: "batch part from an attribute", spec: edit("webhook-adyen", func(s *spec.Spec) { s.Key.Parts[1].In, s.Key.Parts[1].Name = "attribute", "code" }), field: "key.parts[1].in", want: "headers and the body"},
		{name: "batch format of a part it lacks", spec: edit("webhook-adyen", func(s *spec.Spec) { s.Key.Format += ":{merchant}" }), field: "key.format", want: "{merchant} is not one of key.parts"},
		{name: "batch keyed by a header alone", spec: edit("webhook-hubspot", func(s *spec.Spec) {
			s.Key.Parts[0].In, s.Key.Parts[0].Name, s.Key.In, s.Key.Name = "header", "X-Event", "header", "X-Event"
		}), field: "key.batch", want: "every event of a delivery would share one key"},
		{name: "webhook format with two IDs", spec: edit("webhook", func(s *spec.Spec) { s.Key.Format = "{event_id}:{attempt}" }), field: "key.format", want: "has 2"},
		{name: "queue format without placeholder", spec: edit("queue", func(s *spec.Spec) { s.Key.Format = "orders" }), field: "key.format", want: "every message would share one key"},
		{name: "placeholder that is not a name", spec: edit("workflow", func(s *spec.Spec) { s.Key.Format = "{workflow id}:x" }), field: "key.format", want: "lowercase name"},
		{name: "placeholder taking the payload field", spec: edit("workflow", func(s *spec.Spec) { s.Key.Format = "{workflow_id}:{input}" }), field: "key.format", want: "holds the payload"},
		{name: "unbalanced format", spec: edit("queue", func(s *spec.Spec) { s.Key.Format = "{queue:{message_id}" }), field: "key.format", want: "without its }"},
		{name: "cron without its slot", spec: edit("cron", func(s *spec.Spec) { s.Key.Format = "rollup:{day}" }), field: "key.format", want: "placeholder {day}"},
		{name: "step Derive refuses", spec: edit("client", func(s *spec.Spec) { s.Downstream[0].Key = "{key}:charge the card" }), field: "downstream[0].key", want: "want {key}:STEP"},
		{name: "steps with one Go name", spec: edit("client", func(s *spec.Spec) { s.Downstream[1].Key = "{key}:Charge" }), field: "downstream[1].key", want: "as downstream[0] does"},
		{name: "excluded field with an empty segment", spec: edit("client", func(s *spec.Spec) { s.Hash.Exclude[0].Name = "meta..at" }), field: "hash.exclude[0].name", want: "empty segment"},
		{name: "client acked", spec: edit("client", func(s *spec.Spec) { s.Collisions[0].Policy = "ack" }), field: "collisions[0].policy", want: "a client key replays"},
		{name: "client conflict status", spec: edit("client", func(s *spec.Spec) { s.Collisions[1].Status = 429 }), field: "collisions[1].status", want: "answers a request in progress with 409"},
		{name: "requeue outside a queue", spec: edit("webhook", func(s *spec.Spec) { s.Collisions[1].Policy = "requeue" }), field: "collisions[1].policy", want: "for queue consumers"},
		{name: "XML batch (Salesforce)", spec: edit("webhook-hubspot", func(s *spec.Spec) { s.Key.Payload, s.Key.ProviderName = "xml", "Salesforce outbound messages" }),
			field: "key.payload", want: "Salesforce outbound messages deliver XML (a SOAP envelope), and generate handler writes receivers that read JSON bodies only"},
		{name: "form body key", spec: edit("webhook", func(s *spec.Spec) { s.Key.Payload = "form" }), field: "key.payload", want: "form fields"},
		{name: "cron zone not IANA", spec: edit("cron-berlin", func(s *spec.Spec) { s.Key.TimeZone = "CEST" }), field: "key.time_zone", want: `"CEST" is not an IANA time zone`},
		{name: "cron zone Local", spec: edit("cron-kolkata", func(s *spec.Spec) { s.Key.TimeZone = "Local" }), field: "key.time_zone", want: "e.g. Europe/Berlin"},
		{name: "business date of an hourly slot", spec: edit("cron-berlin", func(s *spec.Spec) { s.Key.Schedule = rules.Duration(time.Hour) }), field: "key.business_date", want: "needs a 1d schedule"},
		{name: "keyword package", spec: edit("cron", func(*spec.Spec) {}), opts: func(o *HandlerOptions) { o.Package = "func" }, want: `package "func": a Go keyword`},
		{name: "package not an identifier", spec: edit("cron", func(*spec.Spec) {}), opts: func(o *HandlerOptions) { o.Package = "my-jobs" }, want: `package "my-jobs": not a Go identifier`},
		{name: "runtime not an import path", spec: edit("cron", func(*spec.Spec) {}), opts: func(o *HandlerOptions) { o.Runtime = "../idem" }, want: `runtime "../idem"`},
		{name: "spec path on two lines", spec: edit("cron", func(*spec.Spec) {}), opts: func(o *HandlerOptions) { o.SpecPath = "a\nb.md" }, want: "spec path"},
		{name: "dir not clean", spec: edit("cron", func(*spec.Spec) {}), opts: func(o *HandlerOptions) { o.Dir = "internal/../jobs" }, want: `dir "internal/../jobs"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := handlerOpts("bad")
			if tc.opts != nil {
				tc.opts(&opts)
			}
			h, err := GenerateHandler(tc.spec(t), opts)
			if err == nil {
				t.Fatalf("no error; generated %d files", len(h.Files))
			}
			if h != nil {
				t.Errorf("a Handler came with the error")
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %q is not %v", err, tc.is)
			}
			var fe *spec.FieldError
			var oe *OptionError
			switch {
			case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field):
				t.Errorf("error %q does not name the field %s", err, tc.field)
			case tc.field == "" && !errors.As(err, &oe):
				t.Errorf("error %q is not an *OptionError", err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, exported, unexported string }{
		{"charge-card", "ChargeCard", "chargeCard"},
		{"workflow_id", "WorkflowID", "workflowID"},
		{"id-verify", "IDVerify", "idVerify"},
		{"http", "HTTP", "http"},
		{"3ds-check", "Op3dsCheck", "op3dsCheck"},
		{"record-order", "RecordOrder", "recordOrder"},
		{"a.b_c", "ABC", "abc"},
	}
	for _, tc := range cases {
		if got := exportedName(tc.in); got != tc.exported {
			t.Errorf("exportedName(%q) = %q, want %q", tc.in, got, tc.exported)
		}
		if got := unexported(tc.exported); got != tc.unexported {
			t.Errorf("unexported(%q) = %q, want %q", tc.exported, got, tc.unexported)
		}
	}
}

func TestGoDuration(t *testing.T) {
	t.Parallel()
	cases := []struct {
		d    time.Duration
		want string
	}{
		{24 * time.Hour, "24 * time.Hour"},
		{15 * 24 * time.Hour, "15 * 24 * time.Hour"},
		{time.Hour, "time.Hour"},
		{90 * time.Minute, "90 * time.Minute"},
		{30 * time.Second, "30 * time.Second"},
		{1500 * time.Millisecond, "1500 * time.Millisecond"},
		{time.Microsecond, "time.Duration(1000)"},
	}
	for _, tc := range cases {
		if got := goDuration(tc.d); got != tc.want {
			t.Errorf("goDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestKeyField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, where, name string
		ok              bool
	}{
		{"header Idempotency-Key", "header", "Idempotency-Key", true},
		{"header Idempotency-Key, set once by the calling service", "header", "Idempotency-Key", true},
		{"body id (the event's evt_ ID)", "body", "id", true},
		{"body data.object.id", "body", "data.object.id", true},
		{"header svix-id (or webhook-id in Standard Webhooks mode)", "header", "svix-id", true},
		{"body NotificationRequestItem pspReference + eventCode", "", "", false},
		{"MessageId (or a producer-supplied ID)", "", "", false},
		{"header", "", "", false},
		{"header X:Y", "", "", false},
		{"body a..b", "", "", false},
		{`body a"b`, "", "", false},
	}
	for _, tc := range cases {
		where, name, err := keyField(tc.in)
		if (err == nil) != tc.ok || where != tc.where || name != tc.name {
			t.Errorf("keyField(%q) = %q, %q, %v; want %q, %q, ok %v", tc.in, where, name, err, tc.where, tc.name, tc.ok)
		}
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string // want: parts, placeholders in braces, joined by |; "error" for an error
	}{
		{"{workflow_id}:charge:{invoice_id}", "{workflow_id}|:charge:|{invoice_id}"},
		{"stripe:{event_id}", "stripe:|{event_id}"},
		{"hourly-rollup:{scheduled_time floored to 1h}", "hourly-rollup:|{scheduled_time floored to 1h}"},
		{"plain", "plain"},
		{"{a}{b}", "{a}|{b}"},
		{"{a", "error"},
		{"a}", "error"},
		{"{}", "error"},
		{"{a{b}}", "error"},
	}
	for _, tc := range cases {
		parts, err := parseFormat(tc.in)
		var got []string
		for _, p := range parts {
			if p.placeholder {
				got = append(got, "{"+p.text+"}")
			} else {
				got = append(got, p.text)
			}
		}
		g := strings.Join(got, "|")
		if err != nil {
			g = "error"
		}
		if g != tc.want {
			t.Errorf("parseFormat(%q) = %q (%v), want %q", tc.in, g, err, tc.want)
		}
	}
}

func TestReflowComments(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		"// one two three four five six",
		"// seven",
		"//",
		"//idemkit:claim",
		"//   - alpha beta gamma delta",
		"//     epsilon",
		"//   - zeta",
		"\t// eta theta iota kappa lambda",
		"x := 1 // not touched, however long the line runs",
		"//\tindented code",
	}, "\n")
	want := strings.Join([]string{
		"// one two three four",
		"// five six seven",
		"//",
		"//idemkit:claim",
		"//   - alpha beta gamma",
		"//     delta epsilon",
		"//   - zeta",
		"\t// eta theta iota",
		"\t// kappa lambda",
		"x := 1 // not touched, however long the line runs",
		"//\tindented code",
	}, "\n")
	if got := string(reflowComments([]byte(in), 24)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
