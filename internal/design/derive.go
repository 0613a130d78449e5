package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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
	// Include and Exclude are JSON pointers (/amount, /data/object/id), as
	// the answers file takes them.
	// KeyField is the JSON pointer of the key (/id, /event_id), empty when
	// the key is not in the payload (KeyFrom then says where it is).
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
			return p, fmt.Errorf("unknown key source %q; known sources: %s", p.Source, strings.Join(cat.SourceIDs(), ", "))
		}
	}
	if prov != "" {
		pr, err := cat.FindProvider(prov, p.Source)
		if err != nil {
			return p, nameErr(err, "known providers: "+strings.Join(cat.ProviderIDs(""), ", "))
		}
		p.Provider = pr.ID
		p.KeyFrom = fmt.Sprintf("%s carries its key in %s", pr.Name, pr.KeyField)
		if len(pr.Key.From) > 0 && pr.Key.From[0].Kind == rules.LocationBody {
			if val, ok := lookup(obj, pr.Key.From[0].Name); ok {
				p.KeyField, p.KeyValue = pr.Key.From[0].Name, fmt.Sprint(val)
			}
		}
	}
	if p.KeyField == "" && p.KeyFrom == "" {
		for _, c := range keyCandidates {
			if val, ok := obj[c]; ok && scalar(val) {
				p.KeyField, p.KeyValue = "/"+c, fmt.Sprint(val)
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

	if p.Source == "cron" {
		// A scheduled job's payload is its parameters: the hash names each
		// of them, and leaves out only what differs between runs of one slot
		// (when it started, which attempt it is).
		p.KeyFrom = "a scheduled job's key is its job name and slot; the payload is the job's parameters, and the hash names each of them"
		p.KeyField, p.KeyValue = "", ""
	}
	var delivery []rules.DeliveryField
	if pr, ok := cat.Provider(p.Provider); ok {
		delivery = pr.Exclude
	}
	p.Include, p.Exclude = []string{}, []spec.Field{}
	w := walker{p: &p, cat: cat, delivery: delivery}
	w.object("", obj)
	return p, nil
}

// walker proposes the hash's fields over a nested payload. A member is
// excluded when it is the key itself, delivery metadata (the provider's
// documented fields, attempt counters, delivery IDs) or a volatile field
// (the catalogue's, or a timestamp); a business date (value_date,
// due_date: a date without a time) is part of the operation. An object
// with nothing excluded inside is included whole; one with an exclusion
// is walked, so the include list names what stays.
type walker struct {
	p        *Proposal
	cat      *rules.Catalog
	delivery []rules.DeliveryField
}

// object walks the members of obj, at JSON pointer prefix.
func (w walker) object(prefix string, obj map[string]any) {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		ptr := prefix + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		val := obj[name]
		if reason := w.excluded(ptr, name, val); reason != "" {
			w.p.Exclude = append(w.p.Exclude, spec.Field{Name: ptr, Reason: reason})
			continue
		}
		if sub, ok := val.(map[string]any); ok && w.hasExclusion(ptr, sub) {
			w.object(ptr, sub)
			continue
		}
		w.p.Include = append(w.p.Include, ptr)
	}
}

// hasExclusion reports whether anything under obj would be excluded.
func (w walker) hasExclusion(prefix string, obj map[string]any) bool {
	for name, val := range obj {
		ptr := prefix + "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		if w.excluded(ptr, name, val) != "" {
			return true
		}
		if sub, ok := val.(map[string]any); ok && w.hasExclusion(ptr, sub) {
			return true
		}
	}
	return false
}

// excluded says why the member at ptr is not part of the operation, or "".
func (w walker) excluded(ptr, name string, val any) string {
	if ptr == w.p.KeyField {
		return "it is the idempotency key itself; the hash guards the rest of the payload"
	}
	for _, f := range w.delivery {
		if f.Kind == rules.LocationBody && f.Name == ptr {
			return "delivery metadata: " + f.Reason
		}
	}
	if reason := deliveryReason(name); reason != "" {
		return reason
	}
	return volatileReason(name, val, w.cat)
}

// deliveryWords are member names that count or identify deliveries, not
// the operation: they differ between two deliveries of one event.
var deliveryWords = map[string]string{
	"attempt": "an attempt counter", "attempts": "an attempt counter", "attemptcount": "an attempt counter",
	"deliveryattempt": "an attempt counter", "retrycount": "a retry counter", "retries": "a retry counter",
	"redeliverycount": "a redelivery counter", "receivecount": "a receive counter", "approximatereceivecount": "a receive counter",
	"pendingwebhooks": "a pending-delivery counter", "deliveryid": "a delivery ID", "receipthandle": "a receipt handle",
	"ackid": "an ack ID", "deliverytag": "a delivery tag",
}

func deliveryReason(name string) string {
	if what, ok := deliveryWords[normalize(name)]; ok {
		return "delivery metadata: " + what + ", different on every delivery of the same event"
	}
	return ""
}

// lookup finds the value at JSON pointer ptr in obj.
func lookup(obj map[string]any, ptr string) (any, bool) {
	var cur any = obj
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[strings.NewReplacer("~1", "/", "~0", "~").Replace(part)]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// volatileReason says why a field is noise for the hash, or "" when it is
// part of the operation: the catalogue's volatile fields by name, and
// timestamp-shaped values under time-like names. A date without a time
// (value_date, due_date: "2026-03-14") is a business date, part of what the
// operation does, not the moment a request was made.
func volatileReason(name string, val any, cat *rules.Catalog) string {
	norm := normalize(name)
	for _, vf := range cat.VolatileFields {
		if normalize(vf.Name) == norm {
			return vf.Reason
		}
	}
	if businessDate(val) {
		return ""
	}
	timeName := strings.HasSuffix(norm, "at") && len(norm) > 2 || strings.HasSuffix(norm, "ts") ||
		strings.Contains(norm, "time") || strings.Contains(norm, "date") || timeWords[norm]
	if timeName && looksLikeTime(val) {
		return "a timestamp: it differs between attempts of the same action"
	}
	return ""
}

// businessDate reports a calendar date without a time of day.
func businessDate(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

// timeWords are field names that hold a time without saying so.
var timeWords = map[string]bool{"created": true, "updated": true, "modified": true, "sent": true, "received": true, "issued": true}

func normalize(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

func looksLikeTime(v any) bool {
	switch v := v.(type) {
	case string:
		for _, layout := range []string{time.RFC3339Nano, time.RFC1123, "2006-01-02 15:04:05"} {
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

// FieldPath turns a hash field as the answers give it, a JSON pointer
// (/data/object/id) or a dotted path (data.object.id), into the dotted path
// the spec and the runtime's canonical form use. A member name holding a
// dot cannot be written as a path, so its pointer is refused.
func FieldPath(f string) (string, error) {
	f = strings.TrimSpace(f)
	if f == "" {
		return "", errors.New("empty field name")
	}
	if !strings.HasPrefix(f, "/") {
		if slices.Contains(strings.Split(f, "."), "") {
			return "", fmt.Errorf("%q has an empty segment; write a nested field parent.child or as a JSON pointer /parent/child", f)
		}
		return f, nil
	}
	if err := rules.CheckJSONPointer(f); err != nil {
		return "", err
	}
	parts := strings.Split(f[1:], "/")
	for i, part := range parts {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		if part == "" || strings.Contains(part, ".") {
			return "", fmt.Errorf("%q: the member %q cannot be named in the canonical hash's paths (empty, or holding a dot)", f, part)
		}
		parts[i] = part
	}
	return strings.Join(parts, "."), nil
}
