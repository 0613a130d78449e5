// Package checkthenact defines an Analyzer that reports a dedup,
// idempotency or unique record that is read and then written as two
// steps, which two concurrent retries both pass.
//
// # Analyzer checkthenact
//
// checkthenact: a dedup record checked, then written, as two steps
//
// The check is a SQL SELECT (with or without FOR UPDATE, which cannot lock
// a row that does not exist yet), a gorm First, Take, Last, Find or Count,
// or a Redis GET or EXISTS; the act is an INSERT without ON CONFLICT (or
// MySQL's and SQLite's equivalents), an UPDATE that does not compare what
// it read, a gorm Create without an OnConflict clause, or a Redis SET
// without NX. Both must concern the same table, model or key, one whose
// name or key column says it records what was already done
// (processed_events, idempotency_keys, a "seen:" key, an event_id column),
// and the act must be reachable from the check in the control-flow graph.
// The check and the act may sit in different functions of the package,
// such as an alreadyProcessed helper and a markProcessed helper called in
// turn by a handler. gorm's FirstOrCreate is both steps in one call.
//
// A constant INSERT on Postgres gets a suggested fix: ON CONFLICT on the
// key column, DO NOTHING; the caller must then treat zero rows affected as
// "already done".
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package checkthenact
