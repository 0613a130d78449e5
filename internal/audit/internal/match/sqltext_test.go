package match

import (
	"maps"
	"reflect"
	"testing"
)

func TestParseSQL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sql  string
		want Statement
	}{
		{"SELECT 1 FROM processed_events WHERE event_id = $1",
			Statement{Verb: Select, Table: "processed_events", Columns: []string{"event_id"}}},
		{"select exists(select 1 from public.processed_events pe where pe.event_id=$1)",
			Statement{Verb: Select, Table: "processed_events", Columns: []string{"event_id"}}},
		{"SELECT status FROM idempotency_keys WHERE key = $1 AND tenant = $2 FOR UPDATE",
			Statement{Verb: Select, Table: "idempotency_keys", Columns: []string{"key", "tenant"}, ForUpdate: true}},
		{"SELECT id FROM jobs WHERE queue = ? ORDER BY id LIMIT 10 FOR NO KEY UPDATE SKIP LOCKED",
			Statement{Verb: Select, Table: "jobs", Columns: []string{"queue"}, ForUpdate: true}},
		{"-- the check\nSELECT count(*) FROM \"Webhook_Inbox\" /* quoted */ WHERE delivery_id = @id",
			Statement{Verb: Select, Table: "webhook_inbox", Columns: []string{"delivery_id"}}},
		{"INSERT INTO processed_events (event_id, processed_at) VALUES ($1, now())",
			Statement{Verb: Insert, Table: "processed_events", Columns: []string{"event_id", "processed_at"}}},
		{"INSERT INTO processed_events (event_id) VALUES ($1) ON CONFLICT (event_id) DO NOTHING",
			Statement{Verb: Insert, Table: "processed_events", Columns: []string{"event_id"}, Conditional: true}},
		{"INSERT INTO `dedup` (k) VALUES (?) ON DUPLICATE KEY UPDATE k = k",
			Statement{Verb: Insert, Table: "dedup", Columns: []string{"k"}, Conditional: true}},
		{"INSERT IGNORE INTO dedup (k) VALUES (?)",
			Statement{Verb: Insert, Table: "dedup", Columns: []string{"k"}, Conditional: true}},
		{"INSERT OR IGNORE INTO dedup (k) VALUES (?)",
			Statement{Verb: Insert, Table: "dedup", Columns: []string{"k"}, Conditional: true}},
		{"REPLACE INTO dedup (k) VALUES (?)",
			Statement{Verb: Insert, Table: "dedup", Columns: []string{"k"}, Conditional: true}},
		{"INSERT INTO inbox (id) SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM inbox WHERE id = $1)",
			Statement{Verb: Insert, Table: "inbox", Columns: []string{"id"}, Conditional: true}},
		{"WITH x AS (SELECT 1 FROM a) INSERT INTO b (k) VALUES ('it''s')",
			Statement{Verb: Insert, Table: "b", Columns: []string{"k"}}},
		{"UPDATE orders SET status = 'paid', version = version + 1 WHERE id = $1 AND version = $2",
			Statement{Verb: Update, Table: "orders", Assigned: []string{"status", "version"}, Columns: []string{"id", "version"}, Guarded: true, SetLiterals: map[string]string{"status": "paid"}}},
		{"UPDATE idempotency_keys SET status = 'running' WHERE key = $1 AND status = 'pending'",
			Statement{Verb: Update, Table: "idempotency_keys", Assigned: []string{"status"}, Columns: []string{"key", "status"}, Guarded: true, SetLiterals: map[string]string{"status": "running"}}},
		{"UPDATE idempotency_keys SET status = 'running' WHERE key = $1",
			Statement{Verb: Update, Table: "idempotency_keys", Assigned: []string{"status"}, Columns: []string{"key"}, SetLiterals: map[string]string{"status": "running"}}},
		{"DELETE FROM idempotency_keys WHERE key = $1",
			Statement{Verb: Delete, Table: "idempotency_keys", Columns: []string{"key"}}},
		{"CREATE TABLE t (id int)", Statement{}},
		{"", Statement{}},
	} {
		if got := ParseSQL(tt.sql); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSQL(%q)\n got %+v\nwant %+v", tt.sql, got, tt.want)
		}
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                  string
		words                 []string
		dedup, key, keyColumn bool
	}{
		{"processed_events", []string{"processed", "events"}, true, false, false},
		{"ProcessedEvent", []string{"processed", "event"}, true, false, false},
		{"webhook_inbox", []string{"webhook", "inbox"}, true, false, false},
		{"idem:charge:", []string{"idem", "charge"}, true, true, true},
		{"IdempotencyKey", []string{"idempotency", "key"}, true, true, true},
		{"MessageDeduplicationId", []string{"message", "deduplication", "id"}, true, true, true},
		{"X-idempotence-uuid", []string{"x", "idempotence", "uuid"}, true, true, true}, // Wise's header
		{"eventID", []string{"event", "id"}, false, false, true},
		{"X-GitHub-Delivery", []string{"x", "git", "hub", "delivery"}, false, false, false},
		{"HTTPKey", []string{"http", "key"}, false, false, false},
		{"orders", []string{"orders"}, false, false, false},
		{"request_id", []string{"request", "id"}, false, false, false},
		{"user_id", []string{"user", "id"}, false, false, false},
	} {
		if got := Words(tt.name); !reflect.DeepEqual(got, tt.words) {
			t.Errorf("Words(%q) = %q, want %q", tt.name, got, tt.words)
		}
		if got := DedupName(tt.name); got != tt.dedup {
			t.Errorf("DedupName(%q) = %v", tt.name, got)
		}
		if got := KeyName(tt.name); got != tt.key {
			t.Errorf("KeyName(%q) = %v", tt.name, got)
		}
		if got := KeyColumn(tt.name); got != tt.keyColumn {
			t.Errorf("KeyColumn(%q) = %v", tt.name, got)
		}
	}
}

func TestParseSQLIncrements(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sql  string
		want bool
	}{
		{"UPDATE orders SET refunded_cents = refunded_cents + $2 WHERE id = $1", true},
		{"UPDATE wallets SET balance=balance-$1, updated_at = now() WHERE id = $2", true},
		{"update carts set items = array_append(items, $1) where id = $2", true},
		{"UPDATE notes SET body = body || $1 WHERE id = $2", true},
		{"UPDATE orders SET status = 'paid', version = version + 1 WHERE id = $1", false},
		{"UPDATE jobs SET attempts = attempts + 1, status = 'running' WHERE id = $1", false},
		{"UPDATE orders SET refunded_cents = $2 WHERE id = $1 AND refunded_cents + $2 < 100", false},
		{"UPDATE orders SET total = subtotal + tax WHERE id = $1", false},
	} {
		if got := ParseSQL(tt.sql).Increments; got != tt.want {
			t.Errorf("ParseSQL(%q).Increments = %v, want %v", tt.sql, got, tt.want)
		}
	}
}

func TestSetLiterals(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sql  string
		want map[string]string
	}{
		{"UPDATE outbox SET status = 'SENT', processed_at = NOW() WHERE id = $1", map[string]string{"status": "SENT"}},
		{"update outbox set Status='it''s sent' where id = $1", map[string]string{"status": "it's sent"}},
		{"UPDATE outbox SET status = 'FAILED' WHERE id = $1 AND status <> 'SENT'", map[string]string{"status": "FAILED"}},
		{"UPDATE outbox SET status = $2 WHERE id = $1", map[string]string{}},
		{"SELECT id FROM outbox WHERE status = 'PENDING'", nil},
		{"INSERT INTO outbox (status) VALUES ('NEW')", nil},
	} {
		if got := ParseSQL(tt.sql).SetLiterals; !maps.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("ParseSQL(%q).SetLiterals = %v, want %v", tt.sql, got, tt.want)
		}
	}
}
