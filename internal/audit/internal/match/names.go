package match

import (
	"slices"
	"strings"
	"unicode"
)

// Words splits a name into lowercase words at '_', '-', ':', '.', '/',
// spaces and camelCase boundaries ("processedEvents" and "processed_events"
// are both [processed events]; "HTTPKey" is [http key]).
func Words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// keyWords mark a name as being about idempotency or deduplication itself.
var keyWords = []string{"idempotency", "idempotence", "idempotent", "idem", "dedup", "dedupe", "deduplication"}

// recordWords mark a table, model or key prefix as the record of what was
// already done: processed_events, webhook_inbox, seen_messages.
var recordWords = []string{"processed", "inbox", "seen", "handled", "unique"}

// DedupName reports whether name (a table, a gorm model type, a Redis key
// prefix) holds the records that tell a repeated operation from a new one:
// idempotency_keys, processed_events, webhook_inbox, DedupEntry, "idem:".
func DedupName(name string) bool {
	for _, w := range Words(name) {
		if slices.Contains(keyWords, w) || slices.Contains(recordWords, w) {
			return true
		}
	}
	return false
}

// KeyName reports whether name (a variable, field, column or header) holds
// an idempotency or deduplication key: idempotencyKey, IdempotencyKey,
// dedup_id, idemKey, MessageDeduplicationId.
func KeyName(name string) bool {
	return slices.ContainsFunc(Words(name), func(w string) bool { return slices.Contains(keyWords, w) })
}

// idWords are the IDs a sender keeps across its retries, which makes a
// column holding one a dedup key: event_id, message_id, delivery_id.
var idWords = []string{"event", "message", "delivery", "webhook"}

// KeyColumn reports whether a column holds a key that identifies one
// logical operation across retries: an idempotency or dedup key, or a
// sender's event, message or delivery ID. A request ID is not one: it is
// usually made per attempt.
func KeyColumn(name string) bool {
	if KeyName(name) {
		return true
	}
	ws := Words(name)
	for i := 0; i+1 < len(ws); i++ {
		if slices.Contains(idWords, ws[i]) && ws[i+1] == "id" {
			return true
		}
	}
	return false
}

// NotFoundName reports whether name names a "no such record" sentinel:
// sql.ErrNoRows, pgx.ErrNoRows, redis.Nil, gorm.ErrRecordNotFound,
// mongo.ErrNoDocuments, a package's ErrNotFound or ErrMissing.
func NotFoundName(name string) bool {
	l := strings.ToLower(name)
	return l == "nil" || strings.Contains(l, "norows") || strings.Contains(l, "notfound") || strings.Contains(l, "nomatch") ||
		strings.Contains(l, "nodocuments") || strings.Contains(l, "nokey") || strings.Contains(l, "missing")
}
