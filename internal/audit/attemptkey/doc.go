// Package attemptkey defines an Analyzer that reports an idempotency or
// dedup key made fresh for each attempt, so that no retry is ever recognised
// as one.
//
// # Analyzer attemptkey
//
// attemptkey: an idempotency key made fresh for each attempt
//
// A fresh value is a random or time-ordered UUID (google/uuid, gofrs/uuid
// NewV1, NewV4, NewV6, NewV7 and a Generator's), a ULID, KSUID or xid,
// watermill's NewUUID, NewShortUUID and NewULID, an ID library's new ID
// (a package named for IDs, its name ending in id or flake: a function or
// a generator's method named New, Must, Generate, Next or NextID that takes
// no more than a length, a worker number or an alphabet and returns the
// ID, such as nanoid's New, shortid's Generate, snowflake's Node.Generate,
// sonyflake's NextID, and a call of the generator function such a package
// made, gen, _ := nanoid.Standard(21); gen()), stripe-go's
// NewIdempotencyKey, time.Now (its UnixNano, Unix, Format or String), a math/rand or crypto/rand value, bytes crypto/rand.Read put in a
// buffer, a retry loop's attempt counter, the number of the attempt a
// queue or an engine hands its code (river's job.Attempt, JetStream's
// NumDelivered, Temporal's activity.GetInfo(ctx).Attempt,
// asynq.GetRetryCount, Pub/Sub's DeliveryAttempt, and an entry of a
// message's attributes or headers named for it: SQS's
// ApproximateReceiveCount, a quorum queue's x-delivery-count, and the
// header a caller that calls a handler again numbers its tries in, Cloud
// Tasks' X-CloudTasks-TaskRetryCount or TaskExecutionCount, read with Get
// or as an entry of r.Header), or, in a consumer, a value the
// queue makes anew for each delivery (an SQS receipt handle, an AMQP
// delivery tag); a string built from one is fresh too, while a struct
// holding one (an entity with a new ID) is not a key. A name-based UUID
// (NewSHA1, NewMD5, NewV5) is derived, and a time cut to a slot of an hour
// or more (Truncate, Round, a division of its Unix reading, a calendar part,
// a Format without minutes such as "2006-01-02") names the slot: neither is
// fresh. A slot of minutes is: a retry's backoff crosses it.
//
// It is reported when it reaches an idempotency sink within one attempt that
// made it:
//
//   - a turn of a retry loop: a for loop whose condition or counter
//     counts attempts or tries, one that goes round again only after a
//     failure (it leaves on success, if err == nil { return }, or at the
//     end of every turn that did not continue, or it waits only in an
//     if err != nil branch), one that waits by the clock (a sleep,
//     time.After) and sends the same thing again on every turn (only
//     values held from before the loop besides the key) unless it runs
//     until stopped, one that waits on a backoff, or one with no
//     condition that does not wait; a range over a count that does the
//     same, or over backoff delays. A loop that waits and then sends
//     something new (a poll's rows, a reading of the clock) runs on a
//     schedule instead, and so does one that runs until stopped: no
//     counter, no condition its turns decide, and no way out but a stop
//     (ctx.Done(), a quit channel) or a failure (if err != nil { return
//     err }); a heartbeat or an announcement sends on success too, each
//     beat a record of its own. A
//     loop over items, or over a count of things to make, is none, and so
//     is a loop whose turn takes a new input before it sends anything: a
//     receive whose value the turn uses (p, ok := <-in; case job :=
//     <-jobs:), or a call that takes the next input of a stream, queue or
//     cursor held from before the loop and whose result the turn uses
//     (FetchMessage, Next, Receive, Dequeue, BRPop, XReadGroup, Accept,
//     rows.Next, conn.Do("BRPOP", ...)), unless the loop leaves once a turn
//     succeeds (then it retries the taking). Each input is a new operation;
//     a retry loop nested in such a loop still counts, and a receive whose
//     value is dropped (<-time.After(d)) is a wait, not an input;
//   - a run of a function handed to a retry helper: cenkalti/backoff's Retry
//     and RetryNotify, avast/retry-go's Do, any function named for retries,
//     backoff or polling, one that runs it under a retry policy it is
//     given or an executor built from one (failsafe-go's
//     failsafe.With(retryPolicy).Run), a literal handed the attempt's
//     number (matryer/try's func(attempt int) (bool, error)), and a function of the package that calls its
//     function parameter in a loop (not once for each input it takes),
//     whether the literal is passed directly, through a variable or as a
//     method value;
//   - a call of a function that retries by calling itself again in a
//     branch taken on an error, after a wait or counting its attempts in
//     a parameter (Book(ctx, id, attempt+1));
//   - an attempt of an outgoing call, below every retry: an HTTP
//     transport's RoundTrip (or a function literal of its shape, for a
//     RoundTripper adapter) and a gRPC unary or stream client interceptor
//     run once for each attempt, so a key they make is new on every retry
//     above them (the caller's, go-retryablehttp's, a retry policy's); one
//     they pass on from the request's context is the caller's; so does a
//     request hook, a function literal taking the outgoing request that
//     is given to or set on a client that retries (resty's
//     OnBeforeRequest, go-retryablehttp's PrepareRetry and
//     RequestLogHook);
//   - a request to an HTTP handler: a net/http one (but one that holds a
//     Pub/Sub push envelope, {"message": {"data", "messageId",
//     "attributes"}, "subscription"}, handles a delivery of the message,
//     which Pub/Sub posts again until answered 2xx), a function taking a
//     web framework's request context (gin's *gin.Context, echo.Context:
//     a Request beside a JSON answer), or a method of a gRPC service
//     implementation (its type embeds the generated
//     Unimplemented...Server);
//   - a delivery to a consumer of a message that carries its own ID: a
//     literal taking an SQS, NATS, Kafka or AMQP message or an event with an
//     ID field, a function taking a message only ever received (an SQS
//     message, a JetStream Msg, an AMQP Delivery, a river Job, an asynq
//     Task), one that acknowledges the message it takes (m.Ack(), or
//     hands it to a call that settles it: Service Bus's CompleteMessage
//     or AbandonMessage, CommitMessage, MarkMessage), one named for
//     handling, consuming, processing, relaying or forwarding it, one handed
//     over by name as a callback (nc.Subscribe(subj, c.orders)), a loop over
//     received messages, or one whose turn takes such a message (m, err :=
//     r.FetchMessage(ctx); msg, err := cons.Next(); an event polled and
//     narrowed to one, ev := c.Poll(100); switch e := ev.(type) { case
//     *kafka.Message: }), a handler of a command or event, func(ctx, ev
//     *T) error, given to a handler's maker (watermill cqrs's
//     NewEventHandler, NewCommandHandler) or to a subscription (any
//     broker's or wrapper's Subscribe, RegisterSubscriber, Consume) as a
//     literal or by name, or the
//     Handle method of a type that names itself to a router with
//     HandlerName. A Subscribe of the package that only keeps the handlers
//     it is given (appends them to a list, puts them in a map) is an
//     in-process event bus: its Publish calls them in the publisher's
//     call, and nothing delivers an event again, so a subscriber is no
//     consumer, in the package or, through a fact, in any that imports it;
//   - a run of a scheduled job: a function named for its schedule
//     (nightlyPayout, runSettlementJob, Tick) or whose doc comment says so
//     ("the hourly job that..."), a method of a type whose name ends in Job
//     or Cron, a function literal given to AddFunc, Every or a cron package,
//     a function of the package given to one by name or called by such a
//     literal, a ticker loop; in a loop whose select takes both inputs
//     (case msg := <-in:) and ticks (case <-ticker.C:) before it sends
//     anything, each case is a turn of its own: the ticker's case a
//     scheduled run, an input's case one operation for that input (a
//     delivery when it is a message);
//   - a pass of an outbox relay over a stored record: a function taking a
//     record with an ID field (an outbox row, an event; not a message a
//     queue delivered), or a range loop over such records, that marks the
//     record passed on after sending it (MarkPublished(ctx, e.ID),
//     markSent, UpdateStatus(ctx, e.ID, StatusPublished), an UPDATE setting
//     a column named for it (sent_at, published_at, dispatched_at,
//     delivered, an outbox table's processed_at) or a status column to a
//     sent status ('SENT', a placeholder given "published"), a gorm
//     Update or Updates of the record's row doing the same, a gorm Save of
//     the record after setting such a field (e.PublishedAt = &now), a
//     DELETE from an outbox or pending table, directly or in a helper of
//     the package). A record whose send failed or whose mark did not land
//     is sent again by the next pass; an order moved to a new status
//     (shipped, failed, pending) after its event went out is a transition,
//     not a relay;
//   - a run of a workflow activity, which its engine runs again after a
//     failure: a function given to RegisterActivity, a method of a type
//     whose name ends in Activity or Activities, or one whose doc comment
//     calls it an activity or says the engine "retries it".
//
// The key may be made in a function the attempt calls, at any depth in the
// package and across packages (an exported function's fresh result, the key
// it makes and sends, and the parameters that reach a sink in it travel as
// facts): the call is reported, in the attempt. So is a call of a
// constructor that returns a record with a fresh ID of its own (newJob
// returning Job{ID: uuid.NewString()}, through another constructor, or
// across packages as a fact) when the attempt, a retry or a relay, sends
// what it returns without giving it an ID or a key first. A call through an interface
// (a relay's publisher port, r.pub.Publish) is followed into the methods
// that implement it on the types of the package and of the packages it
// imports, leaving out fakes declared in _test.go files. A key built from a value
// made once per process (a package variable, a sync.OnceValue, a field its
// constructor or a sync.Once sets and its methods read, a field a
// constructor keeps from a fresh argument main gives it, a local a sync.Once
// sets, a value a handler closure captures) is reported wherever it reaches
// a sink, since every replica and every restart makes another.
//
// The sinks are stripe-go's Params.SetIdempotencyKey and IdempotencyKey
// field, any struct field, setter or parameter named for an idempotency or
// dedup key (SQS's MessageDeduplicationId, a client's idempotencyKey
// parameter), the AWS SDK's ClientToken and ClientRequestToken, the ID
// a workflow is started under (Temporal's and Cadence's
// StartWorkflowOptions' ID, the workflowID of SignalWithStartWorkflow,
// Step Functions' StartExecutionInput's Name, which the engine refuses a
// second running start of), an
// Idempotency-Key header or an ID header the receiver deduplicates by
// (Webhook-Id, X-Event-Id) on an outgoing net/http request (Set, Add or an
// index) or through a request builder's SetHeader (resty), the same keys in
// gRPC metadata (Pairs, AppendToOutgoingContext) or a JSON body's
// "idempotency_key" entry, the header a downstream target of the rules
// catalogue takes its key in (PayPal's PayPal-Request-Id), or the
// parameter a library function named for that header takes it as
// (plutov/paypal's CaptureAuthorizationWithPaypalRequestId's requestID), NATS's
// Nats-Msg-Id (nats.MsgId, jetstream.WithMsgID, the header of a
// *nats.Msg), the key of a go-redis
// command on a dedup key (its variable, field or method says so), the key
// column of an INSERT into a dedup table, the ID or key field of a record
// named for what it records (ProcessedMessage), the index of a map or the
// key of a sync.Map named so (seen, processed), the key of a call to an
// //idemkit:claim helper, and the id or key parameter of a method named so
// (MarkProcessed) that the check cannot see into, and a watermill
// message's metadata entry named for an idempotency key or read by the
// package's Deduplicator (NewMessageHasherFromMetadataField). More count only in
// some attempts, being also entities' IDs: the name or ID given to a create,
// as a parameter or a field of its request (createDatabase's name,
// CreateBucketInput's BucketName), or the Name or ID of the thing created
// that the request holds (a Cloud Tasks CreateTaskRequest's Task Name,
// by which Cloud Tasks refuses a second task), in a literal, a local
// holding one, or a field set on the request the create is handed
// (req.Task.Name = ...), in a retry; a parameter named for an
// event's or message's ID (eventID) of a method the check cannot see into,
// in a retry, a delivery or a relay; a parameter named for a message's ID
// (msgID) of a send method (Publish, Emit, Send) the check cannot see
// into, in a retry or a relay; the ID of a message literal, or the ID field
// assigned on a message (env.ID = ...), of the delivered message's type (a
// republished copy) in a retry or a delivery, and of any message in a
// relay, but not a trace, correlation or request ID, nor a message's own
// ID when it carries a key besides (EventID, IdempotencyKey); the own ID
// (ID, UUID, JobID of a Job) or event's or message's ID of a record of any
// other type that the function sends (hands, or what it is marshalled
// into, to a call named for sending: Enqueue, Publish, Send,
// WriteMessages, or to a durable enqueue named otherwise: go-redis's
// XAdd, LPush and RPush, river's Client.Insert and InsertTx), the own ID
// only when the record carries no such key, in a retry or a relay; the
// same entries of a map so sent (XAddArgs Values' "event_id" or
// "msg_id", or its "id", "job_id", "task_id" or "command_id" when it
// carries no key; an "order_id" refers to another entity); asynq's TaskID, in a retry or a relay; an AMQP Publishing's MessageId
// (rabbitmq/amqp091-go, streadway/amqp) and a Kafka header whose key names
// such an ID (message-id, event_id; segmentio/kafka-go, confluent-kafka-go,
// sarama), in a retry or a relay; a watermill message's UUID
// (message.NewMessage(uuid, payload), a Message literal's, msg.UUID = ...)
// and a metadata entry naming an event's or message's ID, in a retry or a
// relay, unless the message's metadata carries a key the consumers
// deduplicate by instead; the key of a SET NX on any key for a
// value made once per process (a fresh key per turn may be a search for a
// free one). Keys flow through the package's
// functions: a key made by one function (newKey) and handed to a sink by
// another (charge) is followed through both. A fresh trace or correlation ID
// on a header no one deduplicates by is not a key.
//
// Two keys made fresh are made once all the same. One a handler writes to
// its own response (a form rendered with a hidden key, tmpl.Execute(w,
// page); a JSON answer that hands the client its key, json.NewEncoder(w),
// gin's c.JSON, a writer helper given w) is made where the user acts once:
// the client sends it with every attempt of what it does next. And one
// filled in only while its record has none (if p.IdempotencyKey == "" {
// p.IdempotencyKey = uuid.NewString(); ... }) is made once for the record
// when the block stores it before it is sent (repo.SetKey(ctx, p.ID,
// p.IdempotencyKey)), or when the record is held from before the retry
// loop; filled in on a record loaded or built afresh each attempt and
// never stored, it is new every time. So is a key header set only while the
// request has none (if req.Header.Get("Idempotency-Key") == "" { ... }, or
// after a return taken when it has one) on a request held across the
// attempts: one made before the retry loop, or the request a request hook
// or a transport is handed, which a retrying client (resty,
// go-retryablehttp) hands every attempt with the headers the first one set;
// set on a request built or cloned within the attempt, it is new each time.
//
// A variable set to a constant default and, on some path, to a fresh value
// (n := 0; if m.DeliveryAttempt != nil { n = *m.DeliveryAttempt }) holds
// the fresh value.
//
// A queue that drops a job or task whose content it already holds makes
// the content the dedup key, wherever the enqueue is: river's Insert and
// InsertTx, and a batch's InsertManyParams, with UniqueOpts ByArgs (in the
// options or the args' own InsertOpts; only the fields tagged
// river:"unique" when any is), asynq's
// Enqueue with Unique (on the call or the task) and NewTask with Unique.
// A field or map entry made fresh in the args, or in what the payload
// marshals, makes every copy unique, so the dedup never fires: it is
// reported where it is made, or, for a task a constructor of the package
// or of another (a fact) builds and returns, at the enqueue.
//
// The rule's full documentation (why, bad and good examples) is its entry in
// internal/rules/catalog/checks.yaml, from which Analyzer.Doc is built.
package attemptkey
