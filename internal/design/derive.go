package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// Proposal is what "idemkit derive" proposes for a sample payload: where the
// key comes from and which fields the canonical hash covers.
type Proposal struct {
	Source   string // key source ID
	Provider string // catalogue provider ID, when one was named
	// KeyField is the payload path of the key ("id", "event_id"), empty
	// when the key is not in the payload (KeyFrom then says where it is).
	KeyField string
	KeyValue string // the sample's value at KeyField
	KeyFrom  string // a sentence on where the key comes from
	Include  []string
	Exclude  []spec.Field
}

// Payload errors, for the CLI's table of bad inputs.
var (
	ErrEmptyPayload  = errors.New("the payload is empty; pass a sample request body in JSON")
	ErrPayloadObject = errors.New("the payload is not a JSON object; idemkit derives fields from an object's members")
)

// keyCandidates are payload fields that carry a stable key, best first.
var keyCandidates = []string{"idempotency_key", "idempotencyKey", "event_id", "eventId", "message_id", "messageId", "delivery_id", "webhook_id", "id"}

// ProposeFields reads a sample payload (a JSON object) and proposes the key
// field and the hash's included and excluded top-level fields. source is a
// key source ID, optionally with a provider: "client", "webhook:stripe".
func ProposeFields(payload []byte, source string, cat *rules.Catalog) (Proposal, error) {
	var p Proposal
	if len(bytes.TrimSpace(payload)) == 0 {
		return p, ErrEmptyPayload
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return p, fmt.Errorf("the payload is not valid JSON: %w", err)
	}
	if dec.More() {
		return p, errors.New("the payload holds more than one JSON value; pass one object")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return p, ErrPayloadObject
	}

	src, prov, _ := strings.Cut(source, ":")
	p.Source = strings.TrimSpace(src)
	if p.Source != "" {
		ks, ok := cat.KeySource(p.Source)
		if !ok || ks.Rejected {
			return p, fmt.Errorf("unknown key source %q; known sources: client, webhook, queue, workflow, cron", p.Source)
		}
	}
	if prov != "" {
		pr, ok := cat.Provider(prov)
		if !ok {
			return p, fmt.Errorf("unknown provider %q; known providers: %s", prov, strings.Join(cat.ProviderIDs(""), ", "))
		}
		p.Provider = pr.ID
		p.KeyFrom = fmt.Sprintf("%s carries its key in %s", pr.Name, pr.KeyField)
		if field, ok := bodyField(pr.KeyField); ok {
			if val, ok := obj[field]; ok {
				p.KeyField, p.KeyValue = field, fmt.Sprint(val)
			}
		}
	}
	if p.KeyField == "" && p.KeyFrom == "" {
		for _, c := range keyCandidates {
			if val, ok := obj[c]; ok && scalar(val) {
				p.KeyField, p.KeyValue = c, fmt.Sprint(val)
				p.KeyFrom = fmt.Sprintf("the payload's %s field looks like a stable key; check that a retry sends the same value", c)
				break
			}
		}
	}
	if p.KeyFrom == "" {
		p.KeyFrom = "no key field in the payload: the client should send an Idempotency-Key header, one UUID per logical action"
		if p.Source == "" {
			p.Source = "client"
		}
	}

	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	p.Include, p.Exclude = []string{}, []spec.Field{}
	for _, name := range names {
		switch reason := volatileReason(name, obj[name], cat); {
		case name == p.KeyField:
			p.Exclude = append(p.Exclude, spec.Field{Name: name, Reason: "it is the idempotency key itself; the hash guards the rest of the payload"})
		case reason != "":
			p.Exclude = append(p.Exclude, spec.Field{Name: name, Reason: reason})
		default:
			p.Include = append(p.Include, name)
		}
	}
	return p, nil
}

// bodyField reads a provider's key field description ("body id",
// "body event_id (...)") and returns the top-level payload field it names.
func bodyField(desc string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(desc), "body ")
	if !ok {
		return "", false
	}
	f := strings.Fields(rest)
	if len(f) == 0 || strings.Contains(f[0], ".") {
		return "", false
	}
	return strings.Trim(f[0], "`,"), true
}

// volatileReason says why a field is noise for the hash, or "" when it is
// part of the operation: the catalogue's volatile fields by name, and
// timestamp-shaped values under time-like names.
func volatileReason(name string, val any, cat *rules.Catalog) string {
	norm := normalize(name)
	for _, vf := range cat.VolatileFields {
		if normalize(vf.Name) == norm {
			return vf.Reason
		}
	}
	timeName := strings.HasSuffix(norm, "at") && len(norm) > 2 || strings.HasSuffix(norm, "ts") ||
		strings.Contains(norm, "time") || strings.Contains(norm, "date") || timeWords[norm]
	if timeName && looksLikeTime(val) {
		return "a timestamp: it differs between attempts of the same action"
	}
	return ""
}

// timeWords are field names that hold a time without saying so.
var timeWords = map[string]bool{"created": true, "updated": true, "modified": true, "sent": true, "received": true, "issued": true}

func normalize(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

func looksLikeTime(v any) bool {
	switch v := v.(type) {
	case string:
		for _, layout := range []string{time.RFC3339Nano, time.RFC1123, "2006-01-02 15:04:05", "2006-01-02"} {
			if _, err := time.Parse(layout, v); err == nil {
				return true
			}
		}
	case json.Number:
		n, err := v.Int64()
		return err == nil && n > 1_000_000_000 // seconds or milliseconds since 2001
	}
	return false
}

func scalar(v any) bool {
	switch v.(type) {
	case string, json.Number:
		return true
	}
	return false
}
