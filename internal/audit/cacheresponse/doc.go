// Package cacheresponse defines an Analyzer that reports an idempotency key
// completed without the response a retry should get back, or with a 5xx.
//
// # Analyzer cacheresponse
//
// cacheresponse: a key completed without the response it should replay
//
// In a function whose answer a replay must reproduce (an HTTP handler
// that writes a body, or a function returning a value besides its error;
// a queue consumer or a cron job that only succeeds or fails is not one),
// it reports:
//
//   - a Redis SET of a claimed or idempotency key to a constant ("done",
//     1, true): a flag, not the response;
//   - an UPDATE of the claimed or idempotency table that sets a status
//     and no response column;
//   - an //idemkit:complete call given no response: nil, an empty or
//     status-only idem.Response, or a function that takes none;
//   - a path from a claim (see releaseonerror) that answers without
//     completing, releasing or handing on the key, so that a retry finds it
//     in progress, or runs the work again once a deferred release has freed
//     it.
//
// Everywhere, it reports an //idemkit:complete call that stores a
// constant 5xx status, or a status read from a response (rec.Code,
// resp.StatusCode, a Response variable) that no condition before it
// checks: a transient failure stored as the result is replayed to every
// retry.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package cacheresponse
