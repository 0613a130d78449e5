// Package attemptkey defines an Analyzer that reports an idempotency or
// dedup key made fresh for each attempt, so that no retry is ever
// recognised as one.
//
// # Analyzer attemptkey
//
// attemptkey: an idempotency key made fresh for each attempt
//
// A fresh value is a random UUID or ULID, stripe-go's NewIdempotencyKey,
// time.Now (unless truncated to a slot), or a math/rand or crypto/rand
// value; a string built from one is fresh too, while a struct holding one
// (an entity with a new ID) is not a key. It is reported when it reaches
// an idempotency sink and is made either inside a retry (a for loop that
// does not walk a collection, a range over a count, a function literal
// handed to a retry or backoff helper) that also contains the sink, or in
// an HTTP handler, once per request.
//
// The sinks are stripe-go's Params.SetIdempotencyKey and IdempotencyKey
// field, any struct field, setter or parameter named for an idempotency
// or dedup key (SQS's MessageDeduplicationId, a client's idempotencyKey
// parameter), an Idempotency-Key header on an outgoing net/http request,
// the key of a go-redis command on a dedup key, and the key of a call to
// an //idemkit:claim helper. Keys flow through the package's functions: a
// key made by one function (newKey) and handed to a sink by another
// (charge) is followed through both.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package attemptkey
