// Package idem makes an operation run once per idempotency key, however often it is retried.
//
// A caller claims a key before doing the work. The claim is one atomic write that records the
// request's fingerprint, an in-progress state and a lease: a random token with an expiry. Every
// later write to the key — Complete, Release, Extend — must present that token, so a holder whose
// lease was taken over after it stalled cannot overwrite the newer holder's record. The lease is
// separate from the result TTL: a crashed holder blocks retries only for the lease, not for the
// day the result is kept, and a slow holder keeps its lease by extending it.
//
// Do is the API to reach for first: it claims, runs the work with its lease kept alive, stores
// the result or releases the key on every path (errors, panics, cancellation), and turns the other
// claim outcomes into a replayed result or a typed error. Store is the small interface each
// backend meets; MemoryStore is the embedded one-process default, and the storetest package is
// the conformance suite every backend passes.
//
// For operations: Keeper logs a takeover of a lapsed lease at WARN and a key it could not release
// at ERROR, and Observe wraps any Store with Hooks that count claims by outcome, takeovers, store
// errors and latency, for a metrics adapter.
//
// The functions that claim, complete and release carry the //idemkit:claim, //idemkit:complete
// and //idemkit:release directives, so idemkit's audit checks recognise code that calls them.
package idem
