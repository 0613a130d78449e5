// Package attemptkey defines an Analyzer that reports an idempotency or
// dedup key made fresh for each attempt, so that no retry is ever
// recognised as one.
//
// # Analyzer attemptkey
//
// attemptkey: an idempotency key made fresh for each attempt
//
// A fresh value is a random or time-ordered UUID (google/uuid, gofrs/uuid
// NewV1, NewV4, NewV6, NewV7 and a Generator's), a ULID, KSUID or xid,
// stripe-go's NewIdempotencyKey, time.Now (its UnixNano, Unix, Format or
// String), a math/rand or crypto/rand value, or bytes crypto/rand.Read put
// in a buffer; a string built from one is fresh too, while a struct
// holding one (an entity with a new ID) is not a key. A name-based UUID
// (NewSHA1, NewMD5, NewV5) is derived, and a time cut to its slot
// (Truncate, Round, a calendar part, a Format without minutes such as
// "2006-01-02") names the slot: neither is fresh.
//
// It is reported when it reaches an idempotency sink within one attempt
// that made it:
//
//   - a turn of a retry loop (a for loop that does not walk a collection,
//     a range over a count or over backoff delays);
//   - a run of a function handed to a retry helper: cenkalti/backoff's
//     Retry and RetryNotify, avast/retry-go's Do, any function named for
//     retries or backoff, and a function of the package that calls its
//     function parameter in a loop, whether the literal is passed directly,
//     through a variable or as a method value;
//   - a request to an HTTP handler;
//   - a delivery to a consumer of a message that carries its own ID (a
//     literal taking an SQS, NATS, Kafka or AMQP message, a Handle,
//     Consume, Process or On method taking one or an event with an ID
//     field, a loop over received messages);
//   - a run of a scheduled job (a function or a type's method named for a
//     job, cron or schedule, a function given to AddFunc, a ticker loop).
//
// The key may be made in a function the attempt calls, at any depth in the
// package: the call is reported, in the attempt. A key built from a value
// made once per process (a package variable, a sync.OnceValue, a field its
// constructor or a sync.Once sets and its methods read, a value a handler
// closure captures) is reported wherever it reaches a sink, since every
// replica and every restart makes another.
//
// The sinks are stripe-go's Params.SetIdempotencyKey and IdempotencyKey
// field, any struct field, setter or parameter named for an idempotency
// or dedup key (SQS's MessageDeduplicationId, a client's idempotencyKey
// parameter), an Idempotency-Key header on an outgoing net/http request
// (Set, Add or an index), NATS's Nats-Msg-Id (nats.MsgId,
// jetstream.WithMsgID, the header of a *nats.Msg), the key of a go-redis
// command on a dedup key (its variable, field or method says so), the key
// column of an INSERT into a dedup table, and the key of a call to an
// //idemkit:claim helper. Keys flow through the package's functions: a
// key made by one function (newKey) and handed to a sink by another
// (charge) is followed through both. A fresh trace or correlation ID on a
// header no one deduplicates by is not a key.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package attemptkey
