// Package releaseonerror defines an Analyzer that reports a claimed
// idempotency key or lock left held on a path that fails.
//
// # Analyzer releaseonerror
//
// releaseonerror: a claimed key not released on an error path
//
// A claim is a SET NX (go-redis SetNX, SetArgs with Mode "NX", Do with
// "nx"; redigo's Do("SET", ..., "NX"); rueidis's Set().Nx()), an HSETNX of
// a hash field, an SADD or ZADD whose count of members added is read (0:
// handled before; a sliding window of recent IDs in a sorted set), a
// GETSET (go-redis GetSet, Do with "getset") whose caller asks whether
// the old value was nil (err == redis.Nil, old == ""), which says this
// call set the key first (a GETSET whose reply is dropped writes the key
// either way: no claim), any of these queued on a pipeline and read once
// it ran (pipe.Exec, or a Pipelined or TxPipelined callback that keeps the
// command in a variable of the function), an INCR of a key named for dedup or an event ID whose new
// value is compared with 1 and nothing else (n > 1: a repeat; a rate
// limiter compares it with its limit), an INSERT of an in-progress row ('in_progress', 'processing',
// ...) into a table named for keys or with ON CONFLICT (database/sql, pgx,
// the statement written in the call or kept in a constant or a variable
// set once, sqlc query methods, a sqlboiler model's Insert whose
// unique-violation error is read as the duplicate, bun, go-jet's VALUES(k, "processing") with
// ON_CONFLICT(...).DO_NOTHING(), a gorm Create with OnConflict or into a
// model named for keys), a MongoDB InsertOne of an in-progress or lock document
// whose duplicate-key error means taken (or a BulkWrite upsert model of
// one that only sets on insert), a DynamoDB PutItem of one conditioned on
// attribute_not_exists, alone or as a TransactWriteItems Put beside the
// business write (released by a DeleteOne or DeleteItem of the same key,
// or a transaction's Delete of it), an ent Create of one whose error is read
// with IsConstraintError or an upsert of one that does nothing on
// conflict, an ent Update that moves a row it compares into an
// in-progress status (released by a Delete or an Update of the same key,
// or a Rollback of the ent transaction it was made in), a Postgres
// session advisory lock
// (pg_try_advisory_lock, held on the pooled connection until
// pg_advisory_unlock), a lock from
// bsm/redislock (Obtain) or redsync (a Mutex's Lock), or a call of a claim
// helper: one carrying the //idemkit:claim directive (the reference
// runtime's Store.Claim), one whose body only takes a key from its
// parameters and reports whether it did, a lock helper that returns its
// unlock function, or an interface method whose name and signature say so
// (Claim, TryLock, SetNX, TryMark). Helpers are known in any package: what
// they do travels as an analysis fact, inferred or annotated. A Lua script
// (go-redis's NewScript or Eval, redigo's NewScript, rueidis's
// NewLuaScript) is the command it amounts to on the key it is given,
// wherever its source is kept: a constant in sight, a field, an embedded
// file, an exported variable of another package (scripts.Claim.Run),
// whose source travels as a fact, or a script given to a helper
// (runScript(ctx, s, keys, args...)) or to a wrapper type with its own
// Run, read at each call with the script the caller gives it. A SET NX,
// SETNX or HSETNX, or an EXISTS or GET test that returns before a SET, is
// a claim; a DEL, alone or after its value is compared with an argument
// (a compare-and-delete release script), a release; a SET without a
// condition, a completion.
//
// From the claim the check walks the function's control-flow graph, as
// vet's lostcancel does, to every error path on which nothing released the
// key, completed it or handed it on, and no call deferred before that point
// does so: a defer registered after an early return does not cover it. An
// error path returns an error that may be non-nil (but not echo's return
// c.JSON(http.StatusOK, v), a success), answers HTTP with a 4xx or 5xx
// (http.Error, WriteHeader, a helper given the writer and the status or an
// error, a net/http status constant, gin's or echo's c.JSON(502, ...)), or
// returns from the branch that handles a failed call where the function has
// no error to return, or must answer and gives back only zero values (if
// err != nil { log; return nil, nil }). The decision is made once, in the
// walk, for both this check and cacheresponse, which reads the other paths.
//
// A release is a DEL of the key, an HDEL, SREM or ZREM of what the claim
// took within it, a DELETE from the table (in
// SQL, gorm or bun), a rollback of the claim's transaction, a call of a
// release helper (by directive, by its body, or by an interface method's
// name), the unlock function a lock helper returned, the Unlock of a locked
// mutex, a method of the claim's result that gives it back
// (lease.Release()), a local closure that does one of these (release :=
// func() { ... }), or a deferred function literal that does. Work handed to
// a goroutine that completes or releases the key owns it from there, and
// the walk follows the key into it (a function literal, or a function of
// the package given the key): a failing return there with the key held is
// reported, at the go statement when it lies in another function. A
// function of another package given the key (go worker.Process(ctx, key,
// job)) is known by a fact that says where it returns on a failure with
// the key it was given held. A claim
// helper that writes more than one record under the key (a lock and a
// pending record beside it) is known by which records it writes, and a
// release helper by which it deletes, as analysis facts: a release that
// deletes only some of them (the lock) is reported, since the record left
// refuses every retry until its TTL. A
// branch on the claim's own result prunes the walk: the path on which the
// claim failed (its error, or a predicate of it such as errors.Is(err,
// redis.Nil) or rueidis.IsRedisNil(err)), or found the key taken, has
// nothing to release. A helper's boolean may mean "taken" (ok) or "already
// done" (seen, exists): the side of its first branch that returns early
// without work is the already-done one. Keys named for rate limits,
// cooldowns and caches are not claims. Each finding names the leaking exit
// and the claim.
//
// A release sent with the request's context in a branch that knows that
// context is done (ctx.Err() != nil, errors.Is(err, context.Canceled),
// case <-ctx.Done()), or with a context derived from it, fails at once
// and leaves the key held: it is reported, with a suggested fix that
// detaches it with context.WithoutCancel. A release with a context made
// from Background or WithoutCancel is not.
//
// When the function names its error result and the claim is a go-redis SET
// NX, the suggested fix defers a DEL of the key, conditional on that error,
// right after the claim's checks; for an SADD, ZADD or HSETNX, an SREM,
// ZREM or HDEL of the member, since a DEL would drop the others'.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package releaseonerror
