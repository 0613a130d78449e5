// Package checkthenact defines an Analyzer that reports a record that is
// read and then, when the read found nothing, written as a second step,
// which two concurrent retries both pass.
//
// # Analyzer checkthenact
//
// checkthenact: a record checked, then written, as two steps
//
// Checks and acts are found by what calls do, not by names: every
// function's effects (what it reads, writes, claims or deletes, and from
// which parameter the key comes) are summarised and carried across
// packages as facts, so a repository's AlreadyGranted and RecordGrant,
// called in turn by a service in another package, are a check and an act.
// The check is a read: a SQL SELECT (with or without FOR UPDATE, which
// cannot lock a row that does not exist yet), a gorm First, Take, Last,
// Find or Count, a Redis GET, EXISTS, HGET, HEXISTS or SISMEMBER, a
// ZSCORE or ZRANK of a sorted set's member (then ZADD of it the act; a
// ZADD or SADD whose count of members added decides is a claim), a
// MongoDB FindOne, Find or CountDocuments (driver v1 or v2), a DynamoDB
// GetItem, an ent query's Only, First, Exist, Count or All or a client's
// Get (ent's generated builders, known by their shape), sqlboiler's
// generated FindX, XExists and a query's One, Exists or Count (with the
// Insert, Update or UpdateAll of its models as acts), a go-jet SELECT
// sent with QueryContext (its INSERT, UPDATE or DELETE read as the SQL
// they build, ON_CONFLICT(...).DO_NOTHING() included), or a lookup
// through an interface (Get, Exists, IsProcessed).
// The act is a
// write of the same record with the same key whose running the read's
// result decides (one item of a DynamoDB TransactWriteItems or
// BatchWriteItem, one document of an InsertMany or model of a BulkWrite
// counts as the call it stands for): a branch on what it found
// (ent.IsNotFound too), not a bare `if err != nil { return err }`. An
// INSERT, Create, InsertOne or InsertMany is reported on any table or
// collection; an overwrite (SET, HSET, SADD, UPDATE, an upsert, a PutItem
// or a batch's or transaction's Put without a condition) when the path it
// guards does other work (a payment, a request, a write elsewhere, a
// create through another interface the module declares that is no store,
// as a payment provider's CreatePayment or a mailer's CreateMessage,
// given no transaction and run in no callback), the
// record is named for dedup, or it stores a mark (a constant, true, an
// empty struct, the time) after work the analysis cannot see: a callback,
// or a method of an interface the module declares (a consumer's
// Processor.Process) other than a getter's, a logger's, a meter's or a
// tracer's. A dependency's interface (a Redis client, a broker) is not
// such work. An atomic write (ON CONFLICT, SET NX, an
// InsertOne, InsertMany or BulkWrite insert whose duplicate-key errors
// are read, a mongo.BulkWriteException's item by item, a PutItem or
// UpdateItem, or a transaction's Put or Update, conditioned on
// attribute_not_exists, a BulkWrite upsert model that only sets on
// insert, a MongoDB update whose filter compares what it
// changes, an ent Create whose error is read with IsConstraintError, an
// ent upsert that does nothing on conflict, an ent Update whose
// predicates compare what it sets) is reported only when work runs
// between the check and it. A lock held across both (a mutex,
// an advisory lock, a claim or a parent row's FOR UPDATE taken before the
// check), a SERIALIZABLE transaction, a handled duplicate-key error, or a
// WATCH transaction make the pair safe.
//
// An insert that runs whatever the check found, but keeps its answer in
// the record (ev.IsDuplicate = dup, receipt{Repeat: n > 0}, or the answer
// as an argument of its own), is an act the check decides when that
// stored answer, tested after the insert here or in a function of the
// package given the record, lets work run only for a record not found
// (deliveries fanned out for an event not flagged): two concurrent events
// with one key both find nothing, both are stored unflagged, and both are
// delivered. It is not reported when the insert is atomic (a handled
// duplicate-key error on a unique index), when the function it calls
// sets the flag again (it looked under a lock of its own), when nothing
// but a log or the answer's wording depends on the flag, or when a lock
// or claim is held from the check through the insert.
//
// A lock taken after the check (a store's Lock or TryLock, a redsync
// Mutex, an advisory lock, a SET NX of a lock key) is still held at the
// write, but it guards nothing: a retry whose check ran before the first
// caller's write, and whose lock comes after its release, goes on. With
// work between the lock and the write that the analysis cannot see (the
// wrapped http.Handler's ServeHTTP, gin's or fiber's c.Next, a callback,
// an interface's method),
// the write is reported, whatever it stores; a loader given the key whose
// result is what is stored (a cache fill) is not such work. A second check
// of the same key under the lock, before the write and deciding whether it
// runs (double-checked locking), makes the pair one step, for a record in
// a store as for a map.
//
// A Lua script is the command it amounts to on its key: a SET, a GET, or
// a claim when one script tests and sets (SET NX, SETNX or HSETNX with
// or without an EXPIRE, an EXISTS or GET test in an if or before an and
// that comes before a SET or HSET, a GETSET whose old value it hands
// back), wherever its source is kept: at the call, in a package variable
// or a struct field (set by a constructor or init), in a file embedded
// with //go:embed (into a string or []byte, or read by name from an
// embed.FS, also through a helper such as script("claim")), loaded with
// SCRIPT LOAD and run by its SHA, or in an exported variable of another
// package (scripts.Claim), whose source travels as a fact. A helper
// given the script (runScript(ctx, s, keys, args...)), or a type of the
// package that wraps it (newScript(rdb, src) and its Run), is read at
// each call with the script its caller gives it. A GET in Go and then a
// SET script, or a GET script and then a SET in Go, are two steps. gorm's FirstOrCreate of a dedup model is
// both steps in one call.
//
// A hash read whole (HGETALL, or HGETALL's reply scanned into a struct)
// and a field of it written later are a check and its write when the
// function looks at that field of what it read (h["state"], r.State).
// A read that only skips the common duplicate before a claim of the
// same record under the same key is no check: when the claim (SET NX,
// HSETNX, an INSERT ... ON CONFLICT DO NOTHING) comes before any work
// and decides whether the write runs, it lets one caller through (GET;
// SET NX "running"; the work; SET "done").
//
// A lookup and a store of a record in process memory, inside the
// function a singleflight Group's Do or DoChan runs for the same key, are
// one step: the process's calls with that key share one run, and the
// next finds what it stored. A record other processes share (Redis, SQL)
// is not held back by it.
//
// Records kept in process memory count too: a map that is a package
// variable or a field of a struct holding a sync.Mutex or RWMutex, and a
// sync.Map. A lookup and a store in two critical sections (RLock, look,
// RUnlock, ... Lock, store), or with the lookup unlocked, are two steps;
// one critical section from the lookup through the store, or a second
// lookup under the write lock before it (double-checked locking, as
// above), is one.
// sync.Map's Load then Store is two steps; LoadOrStore, CompareAndSwap
// and LoadAndDelete are one, except that a LoadOrStore whose loaded value
// is checked (a list of the IDs handled, a state) and then stored back
// changed is a Load: the check and the Store are two steps. So are a
// lookup and an add on the in-memory cache libraries services keep
// "seen" sets in: go-cache (Get, then Set), golang-lru and groupcache's
// lru (Get, Peek or Contains, then Add), ristretto, bigcache, ttlcache
// and freecache. Their one-step adds are claims: go-cache's Add (which
// fails for a key it holds), golang-lru's ContainsOrAdd and PeekOrAdd,
// ttlcache's and freecache's GetOrSet. An outgoing request made with a
// safe method (http.NewRequest with GET, HEAD or OPTIONS, then Do) is
// no work between: a read-through cache of a fetch is not reported; nor
// is one of a request for an OAuth 2.0 access token (a POST whose
// function names a grant_type), which gets a second good token. Nor
// is an overwrite that runs only for a GET or HEAD request (after if
// r.Method != http.MethodGet { ...; return }) with no harm done twice
// before it: a page cache in front of a handler serves a read twice. An entry
// overwritten with a value made from what its lookup found (the list
// with one more ID) is reported as an append is, on any record name: of
// two callers that both pass the check, both go on and one's addition is
// lost. Made from means on the way to the store: the lookup's variable
// given a new value after a miss (op = newOperation(id)) stores the new
// value. Besides the cases above, such an overwrite
// is reported when it stores a value the caller handed out apart from
// the key: a function value's (nextPager()), an interface method's (the
// next free courier of a pool), a counter's next number or a random ID,
// or a new object the function goes on with, returned or used after the
// store (a get-or-create of a per-tenant worker), whose struct holds a
// lock, a channel, an atomic or a cancel func, even when the hit side
// returns what it found. Two callers that both miss hand out two, and
// the map keeps one. A value worked out from the key and cached (the
// quota of a tenant's plan) is the same whoever stores it.
//
// In process (idemkit audit) a call through an interface takes the
// effects of the module's methods that implement it; under go vet, which
// sees one package and its dependencies, the method's name and arguments
// stand in.
//
// A constant INSERT on Postgres gets a suggested fix, ON CONFLICT on the
// key column DO NOTHING, only when nothing but the INSERT follows the
// check; where work runs in between, the fix is to claim in the check's
// place, which is not mechanical.
//
// Code a generator wrote (a file marked "Code generated ... DO NOT
// EDIT.", such as sqlboiler's insert cache) is not reported: no one
// edits it, and what it does is read where it is called.
//
// The rule's full documentation (why, bad and good examples) is its entry
// in internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package checkthenact
