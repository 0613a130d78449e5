// Package releaseonerror defines an Analyzer that reports a claimed
// idempotency key or lock left held on a path that fails.
//
// # Analyzer releaseonerror
//
// releaseonerror: a claimed key not released on an error path
//
// A claim is a go-redis SET NX (SetNX, SetArgs with Mode "NX", Do with
// "nx"), an INSERT of an in-progress row ('in_progress', 'processing', ...)
// into a dedup or idempotency table, or a call of a function carrying the
// //idemkit:claim directive: the reference runtime's Store.Claim, or a
// user's helper annotated in any package (the directive travels as an
// analysis fact). From the claim the check walks the function's
// control-flow graph, as vet's lostcancel does, to a return of an error
// that may be non-nil, or to the end of an HTTP handler after a 5xx
// response, on which nothing released the key (an //idemkit:release call,
// a Redis DEL of the same key, a DELETE from the same table, a rollback of
// the claim's transaction), completed it (an //idemkit:complete call, a
// SET or UPDATE of it), or handed the claim to other code, and no deferred
// call does so. A branch on the claim's own result prunes the walk: the
// path on which the claim failed, or found the key taken, has nothing to
// release. Each finding names the leaking return and the claim.
//
// When the function names its error result and the claim is a Redis SET
// NX, the suggested fix defers a DEL of the key, conditional on that
// error, right after the claim's checks.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package releaseonerror
