package rules

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestValidateErrors runs one override per class of error through Override
// and checks the whole message: the check fires, and the blame lands on the
// line of the override that caused it.
func TestValidateErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, src string
		want      []string // every line of the error, in order
		is        error
	}{
		{"ID not lowercase", "providers:\n  - id: Acme\n    name: Acme\n    kind: webhook\n    source: webhook\n    key_field: body id\n    key_example: a1\n    retry_window: 1h\n    suggested_ttl: 2h\n    bound: retries for an hour\n",
			[]string{`.idemkit.yaml:2: providers[0].id: id "Acme" must be lowercase letters, digits, '-' or '_'`}, nil},
		{"required fields", "anti_patterns:\n  - id: x\n    title: X\n",
			[]string{
				`.idemkit.yaml:2: anti_patterns[0].why: missing required field (every anti-pattern needs a why)`,
				`.idemkit.yaml:2: anti_patterns[0].fix: missing required field (every anti-pattern needs a fix)`,
			}, ErrMissingField},
		{"required field emptied", "volatile_fields:\n  - name: timestamp\n    reason: ''\n",
			[]string{`.idemkit.yaml:3: volatile_fields[0].reason: missing required field (every volatile field needs a reason)`}, ErrMissingField},
		{"unknown key source", "providers:\n  - id: stripe\n    source: webhooks\n",
			[]string{`.idemkit.yaml:3: providers[0].source: unknown reference: "webhooks" is not a key source (known: client, cron, queue, server, webhook, workflow)`}, ErrUnknownRef},
		{"rejected key source", "providers:\n  - id: stripe\n    source: server\n",
			[]string{`.idemkit.yaml:3: providers[0].source: provider stripe takes its keys from "server", a rejected key source`}, nil},
		{"unknown kind", "providers:\n  - id: stripe\n    kind: fax\n",
			[]string{`.idemkit.yaml:3: providers[0].kind: kind "fax" is not one of webhook, queue, workflow, cron, internal, ui`}, nil},
		{"TTL below window, TTL changed", "providers:\n  - id: stripe\n    suggested_ttl: 1h\n",
			[]string{`.idemkit.yaml:3: providers[0].suggested_ttl: suggested_ttl 1h is shorter than retry_window 3d: a redelivery after the key expired is processed twice (ttl-below-retry-window)`}, nil},
		{"TTL below window, window changed", "providers:\n  - id: stripe\n    retry_window: 30d\n",
			[]string{`.idemkit.yaml:3: providers[0].retry_window: suggested_ttl 7d is shorter than retry_window 30d: a redelivery after the key expired is processed twice (ttl-below-retry-window)`}, nil},
		{"window on an unbounded provider", "providers:\n  - id: rabbitmq\n    retry_window: 1h\n",
			[]string{`.idemkit.yaml:3: providers[0].retry_window: retry_window 1h contradicts unbounded: true; say in bound what ends a redelivery`}, nil},
		{"window missing", "providers:\n  - id: rabbitmq\n    unbounded: false\n",
			[]string{`.idemkit.yaml:3: providers[0].unbounded: missing required field: the longest time over which the same delivery can arrive again`}, ErrMissingField},
		{"reference not a URL", "providers:\n  - id: stripe\n    reference: see the wiki\n",
			[]string{`.idemkit.yaml:3: providers[0].reference: reference "see the wiki" is not an http(s) URL; link the documentation the window came from`}, nil},
		{"key location kind", "providers:\n  - id: stripe\n    key:\n      from: [{part: event_id, kind: cookie, name: id}]\n",
			[]string{`.idemkit.yaml:4: providers[0].key.from[0]: invalid key location: kind "cookie" is not one of header, body, attribute, parameter, record`}, ErrLocation},
		{"key location header with a space", "providers:\n  - id: github\n    key:\n      from: [{part: delivery_id, kind: header, name: X GitHub Delivery}]\n",
			[]string{`.idemkit.yaml:4: providers[0].key.from[0]: invalid key location: not an HTTP header name: "X GitHub Delivery" has a space`}, ErrHeaderName},
		{"key location body not a pointer", "providers:\n  - id: stripe\n    key:\n      from: [{part: event_id, kind: body, name: event.id}]\n",
			[]string{`.idemkit.yaml:4: providers[0].key.from[0]: invalid key location: JSON pointer "event.id" must start with '/', e.g. /event/id`}, ErrLocation},
		{"key format misses a part", "providers:\n  - id: stripe\n    key:\n      format: \"{id}\"\n",
			[]string{`.idemkit.yaml:4: providers[0].key.format: format "{id}" must use each part of key.from once, in braces: {event_id}`}, nil},
		{"key without from", "providers:\n  - id: acme\n    name: Acme\n    kind: webhook\n    source: webhook\n    key_field: body id\n    key_example: a1\n    retry_window: 1h\n    suggested_ttl: 2h\n    bound: retries for an hour\n    key: {format: \"{id}\"}\n",
			[]string{`.idemkit.yaml:11: providers[0].key.from: missing required field: where the key is read, e.g. from: [{part: event_id, kind: header, name: X-Event-Id}]`}, ErrMissingField},
		{"payload format", "providers:\n  - id: stripe\n    payload: yaml\n",
			[]string{`.idemkit.yaml:3: providers[0].payload: payload "yaml" is not one of json, xml, form`}, nil},
		{"payload without its page", "providers:\n  - id: stripe\n    payload: xml\n",
			[]string{`.idemkit.yaml:3: providers[0].payload: missing required field: the page that says deliveries are xml`}, ErrMissingField},
		{"ack without its page", "providers:\n  - id: stripe\n    ack: {body: ok}\n",
			[]string{`.idemkit.yaml:3: providers[0].ack.url: missing required field: the page that asks for this acknowledgement`}, ErrMissingField},
		{"ack from a queue", "providers:\n  - id: kafka\n    ack: {body: ok, url: https://kafka.apache.org/}\n",
			[]string{`.idemkit.yaml:3: providers[0].ack: ack: only a webhook sender expects an acknowledgement body; a queue provider has none`}, nil},
		{"window kind", "providers:\n  - id: stripe\n    window: {kind: vibes}\n",
			[]string{`.idemkit.yaml:3: providers[0].window.kind: kind "vibes" is not one of retry-schedule, manual-redelivery, retention, timeout, policy`}, nil},
		{"retention not configurable", "providers:\n  - id: kafka\n    window: {configurable: false}\n",
			[]string{`.idemkit.yaml:3: providers[0].window.configurable: a retention window is the queue's own setting: mark it configurable: true`}, nil},
		{"delivery field without a reason", "providers:\n  - id: stripe\n    exclude: [{kind: body, name: /pending_webhooks}]\n",
			[]string{`.idemkit.yaml:3: providers[0].exclude[0].reason: missing required field: why /pending_webhooks changes between deliveries`}, ErrMissingField},
		{"target without dedup", "targets:\n  - id: acme-api\n    name: Acme API\n    mechanism: audit-log\n    note: n\n    reference: https://acme.example/docs\n",
			[]string{`.idemkit.yaml:2: targets[0].dedup: missing required field: what the target does with a repeated call: key, natural or none`}, ErrMissingField},
		{"target with a key but no via or retention", "targets:\n  - id: acme-api\n    name: Acme API\n    dedup: key\n    mechanism: provider-key\n    note: n\n    reference: https://acme.example/docs\n",
			[]string{
				`.idemkit.yaml:2: targets[0].via: missing required field: where the key is sent, e.g. via: {kind: header, name: Idempotency-Key}`,
				`.idemkit.yaml:2: targets[0].remembers: missing required field: how long the target keeps a key (remembers), or remembers_note saying its documentation gives no number`,
			}, ErrMissingField},
		{"mechanism claims dedup the target lacks", "targets:\n  - id: acme-mail\n    name: Acme mail\n    dedup: none\n    mechanism: provider-key\n    note: n\n    reference: https://acme.example/docs\n",
			[]string{`.idemkit.yaml:5: targets[0].mechanism: mechanism provider-key needs a target whose dedup is key, and acme-mail's is none: it would claim deduplication the target does not have`}, nil},
		{"target that does not dedup takes no key", "targets:\n  - id: acme-mail\n    name: Acme mail\n    dedup: none\n    via: {kind: header, name: X-Id}\n    mechanism: audit-log\n    note: n\n    reference: https://acme.example/docs\n",
			[]string{`.idemkit.yaml:5: targets[0].via: a target that does not deduplicate takes no key and remembers nothing; remove via and remembers (say in note what a custom ID does, if anything)`}, nil},
		{"repeat that is no answer", "targets:\n  - id: stripe-api\n    repeat: replay\n",
			[]string{`.idemkit.yaml:3: targets[0].repeat: repeat "replay" is not one of first-result, current-state, conflict, accepted (or leave it out when the documentation does not say)`}, nil},
		{"repeat of a target without a key", "targets:\n  - id: acme-mail\n    name: Acme mail\n    dedup: none\n    repeat: first-result\n    mechanism: audit-log\n    note: n\n    reference: https://acme.example/docs\n",
			[]string{`.idemkit.yaml:5: targets[0].repeat: repeat says what a target that deduplicates on a key answers a repeat; acme-mail's dedup is none: remove it`}, nil},
		{"collision answer for an unknown source", "collisions:\n  - id: completed\n    answers: [{id: replay, title: t, response: r, sources: [client, fax]}]\n",
			[]string{
				`.idemkit.yaml:3: collisions[0].answers[0].sources[1]: unknown reference: "fax" is not a key source`,
				`.idemkit.yaml:3: collisions[0].answers: missing required field: no answer for a webhook key in the completed row; a design would fall back to another transport's terms`,
				`.idemkit.yaml:3: collisions[0].answers: missing required field: no answer for a queue key in the completed row`,
				`.idemkit.yaml:3: collisions[0].answers: missing required field: no answer for a workflow key in the completed row`,
				`.idemkit.yaml:3: collisions[0].answers: missing required field: no answer for a cron key in the completed row`,
			}, ErrUnknownRef},
		{"rejected without anti-pattern", "stores:\n  - id: redis\n    rejected: true\n",
			[]string{
				`.idemkit.yaml:3: stores[0].rejected: missing required field: a rejected store names the anti-pattern it falls into`,
				`.idemkit.yaml:3: stores[0].rejected: store "redis" is rejected: The default`,
			}, ErrMissingField},
		{"unknown anti-pattern", "key_sources:\n  - id: server\n    anti_pattern: fresh-keys\n",
			[]string{`.idemkit.yaml:3: key_sources[0].anti_pattern: unknown reference: "fresh-keys" is not an anti-pattern`}, ErrUnknownRef},
		{"store range inverted", "stores:\n  - id: redis\n    ttl_max: 30m\n",
			[]string{
				`.idemkit.yaml:3: stores[0].ttl_max: ttl_max 30m is below ttl_min 1h (leave ttl_max out for no upper bound)`,
				`.idemkit.yaml:3: stores[0].ttl_max: ttl 1d is outside redis's practical range (1h to 30m)`,
			}, nil},
		{"collision status", "collisions:\n  - id: completed\n    status: 42\n",
			[]string{`.idemkit.yaml:3: collisions[0].status: status 42 is not an HTTP status (0 when the row is not HTTP-specific)`}, nil},
		{"preset references", "presets:\n  - id: payment\n    answers:\n      key: {source: client, provider: strip, retried_by: [ui, lb]}\n      store: {kind: memcache}\n      ttl: 2 days\n      downstream: [{name: x, mechanism: carrier-pigeon}, {name: y}]\n",
			[]string{
				`.idemkit.yaml:3: presets[0].answers.key.provider: unknown reference: "strip" is not a provider`,
				`.idemkit.yaml:3: presets[0].answers.key.retried_by[1]: unknown reference: "lb" is not a provider`,
				`.idemkit.yaml:3: presets[0].answers.store.kind: unknown reference: "memcache" is not a store`,
				`.idemkit.yaml:3: presets[0].answers.ttl: invalid duration "2 days"`,
				`.idemkit.yaml:3: presets[0].answers.downstream[0].mechanism: unknown reference: "carrier-pigeon" is not a mechanism`,
				`.idemkit.yaml:3: presets[0].answers.downstream[1].mechanism: missing required field (each downstream step says how it is made idempotent)`,
			}, ErrUnknownRef},
		{"preset with a rejected key source", "presets:\n  - id: payment\n    answers: {key: {source: server}}\n",
			[]string{`.idemkit.yaml:3: presets[0].answers.key.source: "server" is a rejected key source (per-attempt-key); a preset is a pattern to follow`}, nil},
		{"preset without a key source", "presets:\n  - id: mine\n    title: Mine\n    description: Mine\n    answers: {store: {kind: redis}}\n",
			[]string{`.idemkit.yaml:5: presets[0].answers.key.source: missing required field (a preset says who supplies the key)`}, ErrMissingField},
		{"preset answers of the wrong shape", "presets:\n  - id: payment\n    answers: {key: client, store: redis}\n",
			[]string{
				`.idemkit.yaml:3: presets[0].answers.key: expected a mapping of key answers`,
				`.idemkit.yaml:3: presets[0].answers.key.source: missing required field`,
				`.idemkit.yaml:3: presets[0].answers.store: expected a mapping of store answers`,
			}, nil},
		{"default store rejected", "defaults:\n  store: memcached\n",
			[]string{
				`.idemkit.yaml:2: defaults.store: store "memcached" is rejected: Not for idempotency`,
				`.idemkit.yaml:2: defaults.store: ttl 1d is outside memcached's practical range (1m to 1h)`,
			}, nil},
		{"default store unknown", "defaults:\n  store: mongo\n",
			[]string{`.idemkit.yaml:2: defaults.store: unknown reference: "mongo" is not a store`}, ErrUnknownRef},
		{"lease longer than TTL", "defaults:\n  lease_ttl: 2d\n",
			[]string{`.idemkit.yaml:2: defaults.lease_ttl: lease_ttl 2d is longer than ttl 1d: the key would expire while its claim is still live`}, nil},
		{"check without its fields", "checks:\n  - id: newcheck\n    title: New\n",
			[]string{
				`.idemkit.yaml:2: checks[0].why: missing required field (every check needs a why)`,
				`.idemkit.yaml:2: checks[0].bad: missing required field (every check needs a bad)`,
				`.idemkit.yaml:2: checks[0].good: missing required field (every check needs a good)`,
				`.idemkit.yaml:2: checks[0].fix: missing required field (every check needs a fix)`,
				`.idemkit.yaml:2: checks[0].anti_pattern: missing required field (every check names the anti-pattern it finds)`,
			}, ErrMissingField},
		{"check with an unknown anti-pattern", "checks:\n  - id: checkthenact\n    anti_pattern: race\n",
			[]string{`.idemkit.yaml:3: checks[0].anti_pattern: unknown reference: "race" is not an anti-pattern`}, ErrUnknownRef},
		{"check whose good example is the bad one", "checks:\n  - id: attemptkey\n    bad: f()\n    good: f()\n",
			[]string{`.idemkit.yaml:4: checks[0].good: bad and good are the same code; the good example shows the fix`}, nil},
		{"audit kind not lowercase", "defaults:\n  audit_row_for: [payment, Billing]\n",
			[]string{`.idemkit.yaml:2: defaults.audit_row_for[1]: operation kind "Billing" must be lowercase, e.g. payment`}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadOverrides(".idemkit.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("override accepted:\n%s", tt.src)
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tt.want) {
				t.Fatalf("got %d errors, want %d:\n%v", len(got), len(tt.want), err)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("error %d:\n got %s\nwant %s", i, got[i], tt.want[i])
				}
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(err, %v) = false", tt.is)
			}
		})
	}
}

// TestValidateWithoutPositions covers a catalogue built in Go: no file to
// blame, so errors name the field by its index in the catalogue.
func TestValidateWithoutPositions(t *testing.T) {
	t.Parallel()
	d := Default()
	providers := slices.Clone(d.Providers)
	providers[1].Name = ""
	providers = append(providers, providers[0])
	c := &Catalog{KeySources: d.KeySources, Providers: providers, VolatileFields: d.VolatileFields, Stores: d.Stores,
		Collisions: d.Collisions[:3], Mechanisms: d.Mechanisms, AntiPatterns: d.AntiPatterns, Presets: d.Presets, Defaults: d.Defaults}
	want := []string{
		`providers[1].name: missing required field (every provider needs a name)`,
		fmt.Sprintf(`providers[%d].id: duplicate id "stripe", first given at providers[0]`, len(providers)-1),
		`collisions: missing required field: the collision table has no "expired" row; every spec renders all four (completed, in_progress, mismatch, expired)`,
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted a broken catalogue")
	}
	got := strings.Split(err.Error(), "\n")
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Validate:\n got %q\nwant %q", got, want)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != "" || fe.Line != 0 {
		t.Errorf("first error %+v, want a *FileError with no file", fe)
	}
}
