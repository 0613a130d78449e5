// Package cacheresponse defines an Analyzer that reports an idempotency key
// completed without the response a retry should get back, or with a 5xx.
//
// # Analyzer cacheresponse
//
// cacheresponse: a key completed without the response it should replay
//
// In a function whose answer a replay must reproduce (an HTTP handler
// that writes a body, to its http.ResponseWriter or to the one a
// framework's context hands out, c.Writer().Write(b); a gin or echo
// handler that answers one through its context, a gin middleware whose chain answers (c.Next()), a NATS request-reply handler that responds with what it
// computed, or a function returning a value besides its error; a
// queue consumer or a cron job that only succeeds or fails is not one),
// it reports:
//
//   - a SET of a claimed or idempotency key to a constant ("done", 1,
//     true), through go-redis, redigo or rueidis, or by a Lua script
//     wherever it is kept (in another package's variable, given to a
//     helper that runs it): a flag, not the response;
//   - an HSET of the claimed key that writes status fields and no
//     response field;
//   - an UPDATE of the claimed or idempotency table, or a gorm Update,
//     Updates or Save of its row, that sets a status and no response
//     column; a MongoDB update that $sets the document's state alone, a
//     DynamoDB UpdateItem, or a TransactWriteItems Update, whose SET
//     clause holds no response attribute,
//     an ent Update or UpdateOne that sets a status and no response
//     field (SetStatus without SetResponseBody);
//   - an //idemkit:complete call given no response: nil, an empty or
//     status-only idem.Response, or a function that takes none; and a
//     helper inferred to complete the claimed key (from its body, or an
//     interface method's name) that stores a status alone, or is passed
//     only constants after the key;
//   - a store into a record kept in process memory (a map that is a
//     package variable or a field beside a sync.Mutex or RWMutex, or a
//     sync.Map's Store) that completes a key the function put an entry
//     under earlier in the same map (an in-progress mark stored in the
//     critical section of its check, a LoadOrStore) with an entry whose
//     type has a field for the body and which sets none (&reply{at:
//     time.Now()}); an entry that still says the work is running is a
//     renewal, not a completion;
//   - a SET that completes a claimed key with the body a recorder
//     captured (rec.Body.Bytes(), a gin writer's copied body) and not the
//     status the recorder holds (Code, status, a gin.ResponseWriter's
//     Status()), where nothing else in the function stores that status: a
//     replay answers with whatever status its own code writes;
//   - a success path from a claim (see releaseonerror, whose walk decides
//     which paths are errors) that answers without completing, releasing
//     or handing on the key, so that a retry finds it in progress, or runs
//     the work again once a deferred release has freed it.
//
// Error paths after a claim are never reported here: they are
// releaseonerror's. A lock (a key, helper or type named as one, or a
// helper returning its unlock) is released, never completed, and is not
// reported either.
//
// Everywhere, it reports a completion that stores a constant 5xx status,
// a status argument set to a 5xx constant on the way (code =
// http.StatusBadGateway), a status read from a response (rec.Code,
// resp.StatusCode, a Response variable) that no condition before it
// checks, or a SET of a response read from upstream whose status nothing
// checked: a transient failure stored as the result is replayed to every
// retry. A store's method known only by its shape (Set(ctx, key, saved,
// ttl) of a middleware's store) is such a completion where the function
// claimed or locked the same key first, or looked it up first in the same
// store, whose lookup gives back what Set keeps (a plain response cache:
// Get, then the handler, then Set; or Check, then Put(key, code, header,
// body)), unless it keeps the answers of GET or HEAD requests only. A
// status read in a deferred function that stores the response counts as
// checked there.
//
// It also reports a completion of a claimed key, reached whether or not
// the work failed, that stores the work's error (saved.Err = err.Error(),
// a status read from status.FromError(err)) with nothing before it asking
// what the error was: a timeout or an unavailable dependency becomes the
// key's final answer. Releasing the key when the work fails, storing only
// errors tested to be final (errors.Is(err, ErrRejected)), or marking the
// key failed in the branch that handles the error is not reported.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package cacheresponse
