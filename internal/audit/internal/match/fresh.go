package match

import (
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
	"time"

	"golang.org/x/tools/go/types/typeutil"
)

// freshFuncs are the functions, by package path, whose every call returns
// a value no other call returns: random and time-ordered IDs. Name-based
// UUIDs (google/uuid's NewSHA1 and NewMD5, gofrs's NewV3 and NewV5) are
// derived from their input, so they are absent.
var freshFuncs = map[string][]string{
	"github.com/google/uuid":     {"New", "NewString", "NewRandom", "NewV7", "NewUUID", "NewV6", "NewRandomFromReader"},
	"github.com/gofrs/uuid":      {"NewV1", "NewV4", "NewV6", "NewV7", "NewV1AtTime", "NewV6AtTime", "NewV7AtTime"},
	"github.com/gofrs/uuid/v5":   {"NewV1", "NewV4", "NewV6", "NewV7", "NewV1AtTime", "NewV6AtTime", "NewV7AtTime"},
	"github.com/satori/go.uuid":  {"NewV1", "NewV4"},
	"github.com/oklog/ulid":      {"Make", "New", "MustNew", "MustNewDefault"},
	"github.com/oklog/ulid/v2":   {"Make", "New", "MustNew", "MustNewDefault"},
	"github.com/segmentio/ksuid": {"New", "NewRandom", "NewRandomWithTime"},
	"github.com/rs/xid":          {"New", "NewWithTime"},
	"github.com/nats-io/nuid":    {"Next"},
	"crypto/rand":                {"Text", "Int", "Prime"},
	"time":                       {"Now"},
}

// Fresh reports whether call makes a value that differs every time it
// runs, which makes a poor idempotency key: a random or time-ordered UUID
// (github.com/google/uuid, github.com/gofrs/uuid v4 and v5, including a
// gofrs Generator's methods), a ULID, KSUID or xid, stripe-go's
// NewIdempotencyKey, an ID library's new ID (idFunc: nanoid, shortid,
// snowflake), time.Now, or a math/rand, math/rand/v2 or crypto/rand
// value. It returns the callee as a message names it ("uuid.NewString").
// The bytes crypto/rand.Read puts in a buffer are fresh too: see Fills.
func Fresh(info *types.Info, call *ast.CallExpr) (string, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	name := fn.Pkg().Name() + "." + fn.Name()
	recv := fn.Signature().Recv()
	if recv != nil {
		name = types.TypeString(recv.Type(), func(p *types.Package) string { return p.Name() }) + "." + fn.Name()
		name = strings.TrimPrefix(name, "*")
	}
	if what, ok := idFunc(fn); ok {
		return what, true
	}
	path := fn.Pkg().Path()
	switch {
	case inPackage(fn, "github.com/stripe/stripe-go/..."):
		return name, fn.Name() == "NewIdempotencyKey"
	case path == "math/rand", path == "math/rand/v2":
		return name, !strings.HasPrefix(fn.Name(), "New") && fn.Name() != "Seed" // constructors make generators, not values
	case recv != nil && (path == "github.com/gofrs/uuid" || path == "github.com/gofrs/uuid/v5"):
		// a Generator's NewV4, ...: the same set as the package's functions
	case recv != nil:
		return "", false // ulid.ULID.Time, time.Time's methods: see Slot
	}
	for _, f := range freshFuncs[path] {
		if f == fn.Name() {
			return name, true
		}
	}
	return "", false
}

// Fills reports a call that fills a buffer with random bytes, and returns
// the buffer: crypto/rand.Read(buf), io.ReadFull(rand.Reader, buf),
// rand.Reader.Read(buf), and math/rand's Read. The buffer, hex or base64
// encoded, is then a fresh token.
func Fills(info *types.Info, call *ast.CallExpr) (ast.Expr, string, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || len(call.Args) == 0 {
		return nil, "", false
	}
	path := fn.Pkg().Path()
	switch {
	case fn.Name() == "Read" && fn.Signature().Recv() == nil && (path == "crypto/rand" || path == "math/rand"):
		return call.Args[0], fn.Pkg().Name() + ".Read", true
	case fn.Name() == "ReadFull" && path == "io" && len(call.Args) == 2 && randReader(info, call.Args[0]):
		return call.Args[1], "io.ReadFull(rand.Reader)", true
	case fn.Name() == "Read" && fn.Signature().Recv() != nil:
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && randReader(info, sel.X) {
			return call.Args[0], "rand.Reader.Read", true
		}
	}
	return nil, "", false
}

// randReader reports crypto/rand.Reader.
func randReader(info *types.Info, e ast.Expr) bool {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	v, ok := info.Uses[sel.Sel].(*types.Var)
	return ok && v.Pkg() != nil && v.Pkg().Path() == "crypto/rand" && v.Name() == "Reader"
}

// slotMethods are the time.Time methods whose result is the same for
// every moment of a coarser slot: a job's hour, day or week.
var slotMethods = map[string]bool{
	"Truncate": true, "Round": true, "Date": true, "Year": true, "Month": true, "Day": true,
	"Hour": true, "YearDay": true, "Weekday": true, "ISOWeek": true,
}

// Slot reports a call that turns a time into its schedule slot, the same
// for every attempt of a run in it: Truncate or Round to an hour or more
// (or to a duration that is not constant), the calendar parts (Date, Day,
// Hour, ISOWeek, ...), and Format or AppendFormat with a constant layout
// that shows neither minutes nor seconds ("2006-01-02", "2006010215"). A
// slot of minutes is no slot: retries spaced by a backoff cross it.
func Slot(info *types.Info, call *ast.CallExpr) bool {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "time" || fn.Signature().Recv() == nil {
		return false
	}
	switch fn.Name() {
	case "Format", "AppendFormat":
		layout, ok := ConstString(info, call.Args[len(call.Args)-1])
		return ok && !strings.Contains(layout, "04") && !strings.Contains(layout, "05")
	case "Truncate", "Round":
		if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil {
			d, ok := constant.Int64Val(constant.ToInt(tv.Value))
			return !ok || d >= int64(time.Hour)
		}
	}
	return slotMethods[fn.Name()]
}

// perDelivery are the fields a queue sets anew on every delivery of the
// same message, by the type that holds them: an SQS receipt handle, an
// AMQP delivery tag, a JetStream consumer sequence.
var perDelivery = map[string]string{
	"github.com/aws/aws-sdk-go-v2/service/sqs/types.Message": "ReceiptHandle",
	"github.com/aws/aws-sdk-go/service/sqs.Message":          "ReceiptHandle",
	"github.com/rabbitmq/amqp091-go.Delivery":                "DeliveryTag",
	"github.com/streadway/amqp.Delivery":                     "DeliveryTag",
	"github.com/nats-io/nats.go.SequencePair":                "Consumer",
	"github.com/nats-io/nats.go/jetstream.SequencePair":      "Consumer",
}

// PerDelivery reports a selector of a value the queue makes anew for each
// delivery of a message (m.ReceiptHandle, d.DeliveryTag,
// meta.Sequence.Consumer), which tells deliveries apart, not messages: a
// poor dedup key. It returns the field as a message names it.
func PerDelivery(info *types.Info, sel *ast.SelectorExpr) (string, bool) {
	v, ok := info.Uses[sel.Sel].(*types.Var)
	if !ok || !v.IsField() {
		return "", false
	}
	t := info.TypeOf(sel.X)
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || perDelivery[n.Obj().Pkg().Path()+"."+n.Obj().Name()] != v.Name() {
		return "", false
	}
	return n.Obj().Name() + "." + v.Name(), true
}
