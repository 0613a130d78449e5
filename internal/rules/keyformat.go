package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// placeholder matches the ways people write a value into a key template:
// {x}, {{x}}, {{.X}}, ${x}, <x> and %(x)s.
var placeholder = regexp.MustCompile(`\$?\{\{?\s*([^{}]*?)\s*\}?\}|<([A-Za-z_][^<>]*)>|%\(([^()]*)\)s`)

// Placeholders returns the names of the placeholders of a key format, in
// order: "{tenant_id}:{order_id}" gives tenant_id and order_id.
func Placeholders(format string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(format, -1) {
		out = append(out, strings.TrimSpace(m[1]+m[2]+m[3]))
	}
	return out
}

// PartKind is what a key placeholder names, as far as its name tells.
type PartKind int

const (
	// PartOperation names the operation or the delivery (order_id,
	// event_id, uuid, slot, step): what makes one key differ from the next
	// action of the same actor.
	PartOperation PartKind = iota
	// PartIdentity names who acts (user_id, tenant_id, account, email).
	PartIdentity
	// PartTime names a date or time (date, today, created_at), which one
	// actor shares across all its actions of that day.
	PartTime
)

// identityNouns are the words whose ID names a party, not an action.
var identityNouns = []string{
	"user", "users", "tenant", "account", "customer", "org", "organization", "organisation",
	"workspace", "team", "member", "merchant", "owner", "principal", "actor", "client",
	"device", "session", "company", "profile", "person", "subscriber", "seller", "buyer",
	"payer", "uid", "userid", "tenantid", "accountid", "customerid", "orgid",
}

// identityValues are values that are themselves an identity; "email_id"
// is a message's ID, "email" is a person.
var identityValues = []string{"email", "phone", "username", "login", "ip", "sub", "subject", "handle"}

// timeWords end a placeholder that names a date or a time.
var timeWords = []string{
	"date", "day", "today", "now", "time", "timestamp", "ts", "hour", "minute", "month",
	"year", "week", "datetime", "epoch", "at", "yyyymmdd",
}

// idWords are generic suffixes: "user_id" is the user.
var idWords = []string{"id", "ids", "uuid", "guid", "key", "ref", "number", "no", "num"}

// funcs are wrappers that do not change what a placeholder names:
// {sha256(user_id)} is still the user.
var funcs = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\((.*)\)$`)

// ClassifyPart says what a placeholder names, from its words: the last
// segment of a path (event.user_id is the user), without wrapping
// functions (sha256(user_id)) or filters (user_id|lower), camelCase split.
func ClassifyPart(name string) PartKind {
	name = strings.TrimSpace(name)
	name, _, _ = strings.Cut(name, "|")
	for {
		m := funcs.FindStringSubmatch(strings.TrimSpace(name))
		if m == nil {
			break
		}
		name = m[1]
	}
	segs := strings.FieldsFunc(name, func(r rune) bool { return r == '.' || r == '/' || r == '[' || r == ']' || r == ',' })
	if len(segs) == 0 {
		return PartOperation
	}
	words := splitWords(segs[len(segs)-1])
	if len(segs) > 1 && len(words) > 0 && slices.Contains(idWords, words[len(words)-1]) && len(words) == 1 {
		words = append(splitWords(segs[len(segs)-2]), words...) // user.id
	}
	if len(words) == 0 {
		return PartOperation
	}
	last := words[len(words)-1]
	if slices.Contains(timeWords, last) {
		return PartTime
	}
	stripped := false
	for len(words) > 1 && slices.Contains(idWords, words[len(words)-1]) {
		words, stripped = words[:len(words)-1], true
	}
	last = words[len(words)-1]
	switch {
	case slices.Contains(identityNouns, last):
		return PartIdentity
	case !stripped && slices.Contains(identityValues, last):
		return PartIdentity
	}
	return PartOperation
}

// splitWords lowercases s and splits it into words at '_', '-', spaces and
// camelCase boundaries: "endUserID" gives end, user, id.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// CheckKeyFormat refuses a key format that cannot tell two actions apart:
// one without a placeholder (every operation shares the key), and one made
// only of who acts and when ("transfer:{user_id}", "{tenant_id}:{user_id}",
// "{user_id}:{date}"), which turns a user's second transfer of the day into
// a replay of the first (key-per-user). It also bounds the length.
func CheckKeyFormat(format string) error {
	switch {
	case strings.TrimSpace(format) == "":
		return fmt.Errorf("%w: empty; e.g. {uuid} or {provider}:{event_id}", ErrConstantKey)
	case len(format) > MaxKeyFormat:
		return fmt.Errorf("key format %w: %d bytes, at most %d", ErrTooLong, len(format), MaxKeyFormat)
	case strings.IndexFunc(format, unicode.IsControl) >= 0:
		return fmt.Errorf("key format %q has a control character", clip(format))
	}
	parts := Placeholders(format)
	if len(parts) == 0 {
		return fmt.Errorf("%w: %q would be one key for every operation; add the part that names the action, e.g. {uuid} or {order_id}", ErrConstantKey, clip(format))
	}
	var who []string
	for _, p := range parts {
		switch ClassifyPart(p) {
		case PartOperation:
			return nil
		case PartIdentity:
			who = append(who, "{"+p+"}")
		}
	}
	if len(who) == 0 {
		return nil // only dates and times: a schedule's slot, judged by its source
	}
	return fmt.Errorf("%w: %q is made of %s and nothing that names the action, so the same user's next one is taken for a retry (key-per-user); "+
		"add the action's own ID ({uuid} from the client, {order_id}, {event_id}) and scope by %s instead", ErrIdentityKey, clip(format), strings.Join(who, ", "), strings.Join(who, ", "))
}
