package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Member order and whitespace differ from canonical form; the
	// timestamp and the key are excluded.
	writeFile(t, filepath.Join(dir, "p.json"), `{ "currency": "eur", "amount": 1000, "idempotency_key": "k1",
	  "customer_id": "cus_1", "posted_at": "2026-01-02T03:04:05Z", "trace_id": "abc" }`)
	_, ttyOut, _ := run(t, dir, "", true, nil, "derive", "--payload", "p.json")
	code, stdout, stderr := run(t, dir, "", false, nil, "derive", "--payload", "p.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if ttyOut != stdout {
		t.Errorf("terminal output differs from piped:\n%s\n---\n%s", ttyOut, stdout)
	}
	canon := `{"amount":1000,"currency":"eur","customer_id":"cus_1"}`
	sum := sha256.Sum256([]byte(canon))
	for _, w := range []string{
		`field: /idempotency_key (sample value "k1")`,
		"include: /amount, /currency, /customer_id",
		"/posted_at: a timestamp",
		"/trace_id:",
		canon,
		hex.EncodeToString(sum[:]),
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}

	// With a provider, its documented key field is the key.
	writeFile(t, filepath.Join(dir, "evt.json"), `{"id":"evt_1","type":"charge.succeeded","data":{"amount":5}}`)
	code, stdout, stderr = run(t, dir, "", false, nil, "derive", "--payload", "evt.json", "--source", "webhook:stripe")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, `field: /id (sample value "evt_1")`) || !strings.Contains(stdout, "include: /data, /type") {
		t.Errorf("stripe proposal:\n%s", stdout)
	}
}

// TestDeriveNested checks the walk over a nested payload: exclusions by
// JSON pointer at any depth, business dates kept, the provider's delivery
// metadata and attempt counters left out, a scheduled job's parameters all
// kept; and that the snippet derive prints is taken by design as printed.
func TestDeriveNested(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, payload, source string
		want, not             []string
		answers               string // answers the snippet is appended to
	}{
		{
			name:    "stripe invoice event",
			payload: `{"id":"evt_1","type":"invoice.paid","pending_webhooks":2,"data":{"object":{"id":"in_1","amount_due":5000,"due_date":"2026-04-01","status_transitions":{"paid_at":"2026-03-14T10:00:00Z"}}}}`,
			source:  "webhook:stripe",
			want:    []string{"/pending_webhooks: delivery metadata", "/data/object/status_transitions/paid_at: a timestamp", "/data/object/due_date", `"due_date":"2026-04-01"`},
			not:     []string{"/data/object/due_date: a timestamp", `"pending_webhooks"`},
			answers: "operation: invoice paid\nkey: {source: webhook, provider: stripe}\nstore: {kind: postgres}\n",
		},
		{
			name:    "queue message with counters",
			payload: `{"order_id":"o_1","value_date":"2026-03-14","delivery":{"attempt":3,"delivery_id":"d9"},"lines":[{"sku":"a","qty":1}]}`,
			source:  "queue:sqs-standard",
			want:    []string{"/delivery/attempt: delivery metadata", "/delivery/delivery_id: delivery metadata", "/value_date", "/lines"},
			not:     []string{"/value_date: a timestamp"},
			answers: "operation: apply order\nkey: {source: queue, provider: sqs-standard}\nttl: 30d\n",
		},
		{
			name:    "scheduled job parameters",
			payload: `{"business_date":"2026-03-14","run_at":"2026-03-15T01:00:00Z","attempt":2,"region":"eu"}`,
			source:  "cron",
			want:    []string{"include: /business_date, /region", "/attempt: delivery metadata", "/run_at: a timestamp", "the job's parameters"},
			answers: "operation: nightly\nkey: {source: cron, job: nightly, schedule: 1d}\nttl: 7d\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "p.json"), tc.payload)
			code, stdout, stderr := run(t, dir, "", false, nil, "derive", "--payload", "p.json", "--source", tc.source)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("output lacks %q:\n%s", w, stdout)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(stdout, w) {
					t.Errorf("output has %q:\n%s", w, stdout)
				}
			}
			_, snippet, ok := strings.Cut(stdout, "takes it as printed):\n")
			if !ok {
				t.Fatalf("no answers snippet:\n%s", stdout)
			}
			writeFile(t, filepath.Join(dir, "a.yaml"), tc.answers+snippet)
			if code, out, stderr := run(t, dir, "", false, nil, "design", "--answers", "a.yaml", "--print"); code != 0 {
				t.Fatalf("design refused the snippet as printed: exit %d: %s\n%s", code, stderr, out)
			}
		})
	}
}

func TestDeriveBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		payload string // written to p.json when not empty
		stdin   string
		args    []string
		stderr  []string
	}{
		{name: "no payload flag", args: []string{"derive"}, stderr: []string{"--payload FILE.json is required"}},
		{name: "missing file", args: []string{"derive", "--payload", "gone.json"}, stderr: []string{"gone.json does not exist"}},
		{name: "empty payload", payload: " \n", args: []string{"derive", "--payload", "p.json"}, stderr: []string{"p.json", "empty"}},
		{name: "not json", payload: "amount=5", args: []string{"derive", "--payload", "p.json"}, stderr: []string{"not valid JSON"}},
		{name: "not an object", payload: "[1,2]", args: []string{"derive", "--payload", "p.json"}, stderr: []string{"not a JSON object"}},
		{name: "two values", payload: "{} {}", args: []string{"derive", "--payload", "p.json"}, stderr: []string{"more than one JSON value"}},
		{name: "duplicate member", payload: `{"a":1,"a":2}`, args: []string{"derive", "--payload", "p.json"}, stderr: []string{"I-JSON"}},
		{name: "unknown provider", payload: "{}", args: []string{"derive", "--payload", "p.json", "--source", "webhook:strype"},
			stderr: []string{"strype", "stripe", "github"}},
		{name: "unknown source", payload: "{}", args: []string{"derive", "--payload", "p.json", "--source", "fax"}, stderr: []string{"fax"}},
		{name: "empty stdin", stdin: "", args: []string{"derive", "--payload", "-"}, stderr: []string{"empty"}},
		{name: "positional argument", args: []string{"derive", "p.json"}, stderr: []string{"unknown command"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if tc.payload != "" {
				writeFile(t, filepath.Join(dir, "p.json"), tc.payload)
			}
			code, stdout, stderr := run(t, dir, tc.stdin, false, nil, tc.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestVersionAndCompletion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := run(t, t.TempDir(), "", false, nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "idemkit ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
	code, stdout, _ = run(t, t.TempDir(), "", false, nil, "completion", "bash")
	if code != 0 || !strings.Contains(stdout, "__start_idemkit") {
		t.Errorf("completion bash: exit %d, %.200q", code, stdout)
	}
	code, _, stderr := run(t, t.TempDir(), "", false, nil, "completion", "tcsh")
	if code != 2 || !strings.Contains(stderr, "tcsh") {
		t.Errorf("completion tcsh: exit %d, %q", code, stderr)
	}
}

var updateDerive = flag.Bool("update-derive", false, "rewrite testdata/derive/*.golden")

// TestDeriveGolden pins derive's whole output for one payload per kind of
// source (a webhook event with delivery metadata, a queue message with
// business dates and counters, a scheduled job's parameters): NAME.json
// with the --source in NAME.source gives NAME.golden. Run with
// -update-derive and review the diff.
func TestDeriveGolden(t *testing.T) {
	t.Parallel()
	payloads, err := filepath.Glob(filepath.Join("testdata", "derive", "*.json"))
	if err != nil || len(payloads) == 0 {
		t.Fatalf("no payloads in testdata/derive: %v", err)
	}
	for _, payload := range payloads {
		name := strings.TrimSuffix(filepath.Base(payload), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(strings.TrimSuffix(payload, ".json") + ".source")
			if err != nil {
				t.Fatal(err)
			}
			abs, err := filepath.Abs(payload)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := run(t, t.TempDir(), "", false, nil, "derive", "--payload", abs, "--source", strings.TrimSpace(string(src)))
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			golden := strings.TrimSuffix(payload, ".json") + ".golden"
			if *updateDerive {
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cli -run TestDeriveGolden -update-derive)", err)
			}
			if stdout != string(want) {
				t.Errorf("derive output differs from %s (rerun with -update-derive if meant):\n%s", golden, stdout)
			}
		})
	}
}
