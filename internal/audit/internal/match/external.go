package match

import (
	"go/ast"
	gotoken "go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// libraries are the import paths (with "/..." for a tree) of the
// libraries whose calls Classify and External recognise where they are
// made; their own code is not summarised.
var libraries = []string{
	"github.com/redis/go-redis/...", "github.com/go-redis/redis/...", "github.com/gomodule/redigo/...",
	"github.com/redis/rueidis/...", "github.com/jackc/...", "github.com/jmoiron/sqlx", "github.com/lib/pq",
	"gorm.io/...", "github.com/uptrace/bun/...", "github.com/Masterminds/squirrel", "github.com/doug-martin/goqu/...",
	"github.com/stripe/stripe-go/...", "github.com/aws/...", "github.com/nats-io/...", "github.com/google/uuid",
	"github.com/oklog/ulid/...", "github.com/segmentio/...", "github.com/IBM/sarama", "github.com/Shopify/sarama",
	"github.com/confluentinc/...", "github.com/rabbitmq/...", "github.com/streadway/amqp", "cloud.google.com/...",
	"google.golang.org/...", "golang.org/x/...", "github.com/cenkalti/backoff/...", "github.com/avast/retry-go/...",
	"go.mongodb.org/...", "entgo.io/...", "github.com/volatiletech/sqlboiler/...", "github.com/aarondl/sqlboiler/...",
	"github.com/go-jet/jet/...",
}

// Library reports whether path is one of the libraries the checks know by
// their calls.
func Library(path string) bool {
	return slices.ContainsFunc(libraries, func(l string) bool {
		if prefix, ok := strings.CutSuffix(l, "/..."); ok {
			return path == prefix || strings.HasPrefix(path, prefix+"/")
		}
		return path == l
	})
}

// LibraryPackage reports whether pkg's calls are recognised where they
// are made, as a Library's are: a library's own package, or one a store
// library generated into the module (ent's client and builders), whose
// own code is not summarised either.
func LibraryPackage(pkg *types.Package) bool {
	return pkg != nil && (Library(pkg.Path()) || Generated(pkg))
}

// Generated reports whether pkg is one a store library generated into
// the module: ent's client, builders, predicates and error helpers, or
// sqlboiler's models.
func Generated(pkg *types.Package) bool {
	return entGenerated(pkg) || sqlboilerGenerated(pkg)
}

// externalMethods are the calls, by package tree and name, that change
// something outside the stores the checks follow: a request sent, a
// message published, an email sent. A payment API call is any stripe-go
// call that creates, confirms, captures or pays.
var externalMethods = []struct{ pkg, names string }{
	{"net/http", "Do Post PostForm"},
	{"net/smtp", "SendMail"},
	{"github.com/aws/aws-sdk-go-v2/service/sqs", "SendMessage SendMessageBatch"},
	{"github.com/aws/aws-sdk-go-v2/service/sns", "Publish PublishBatch"},
	{"github.com/aws/aws-sdk-go-v2/service/ses", "SendEmail SendRawEmail"},
	{"github.com/aws/aws-sdk-go-v2/service/sesv2", "SendEmail"},
	{"github.com/aws/aws-sdk-go-v2/service/eventbridge", "PutEvents"},
	{"github.com/nats-io/nats.go/...", "Publish PublishMsg Request RequestMsg PublishAsync PublishMsgAsync"},
	{"github.com/segmentio/kafka-go", "WriteMessages"},
	{"github.com/IBM/sarama", "SendMessage SendMessages"},
	{"github.com/Shopify/sarama", "SendMessage SendMessages"},
	{"github.com/confluentinc/confluent-kafka-go/...", "Produce"},
	{"github.com/rabbitmq/amqp091-go", "Publish PublishWithContext"},
	{"github.com/streadway/amqp", "Publish"},
	{"cloud.google.com/go/pubsub/...", "Publish"},
}

var stripeVerbs = []string{"new", "create", "confirm", "capture", "pay", "cancel", "refund", "transfer", "update", "finalize", "void", "approve", "send", "post"}

// External reports whether call changes something outside the stores the
// checks follow, and names it for a message ("http.Client.Do",
// "stripe paymentintent.New").
func External(info *types.Info, call *ast.CallExpr) (string, bool) {
	fn, ok := typeutil.Callee(info, call).(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	path := fn.Pkg().Path()
	if strings.HasPrefix(path, "github.com/stripe/stripe-go/") {
		words := Words(fn.Name())
		if len(words) > 0 && slices.Contains(stripeVerbs, words[0]) && !strings.HasSuffix(path, "/form") {
			return "stripe " + fn.Pkg().Name() + "." + fn.Name(), true
		}
		return "", false
	}
	for _, m := range externalMethods {
		in := path == m.pkg
		if prefix, ok := strings.CutSuffix(m.pkg, "/..."); ok {
			in = path == prefix || strings.HasPrefix(path, prefix+"/")
		}
		if in && slices.Contains(strings.Fields(m.names), fn.Name()) {
			if path == "net/http" && (fn.Name() == "Do" && safeRequest(info, call) || tokenRequest(info, call)) {
				return "", false
			}
			return fn.Pkg().Name() + "." + fn.Name(), true
		}
	}
	return "", false
}

// tokenRequest reports whether call, an http.Client's Do, Post or
// PostForm, asks an OAuth 2.0 token endpoint for an access token: the
// function that sends it names a grant_type (RFC 6749, section 4), in
// the form or the query it builds. Asking twice gets two tokens, either
// good, and changes nothing else: a cache of the token in front of it
// (look it up, fetch on a miss, keep it) is a read-through cache, as a
// GET's is.
func tokenRequest(info *types.Info, call *ast.CallExpr) bool {
	body := innermostFunc(enclosingInterval(info, call.Pos(), call.End()))
	if body == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == gotoken.STRING && !found {
			s, err := strconv.Unquote(lit.Value)
			found = err == nil && strings.Contains(s, "grant_type")
		}
		return !found
	})
	return found
}

// safeRequest reports whether call, an http.Client's Do, sends a request
// its function made with a safe method (GET, HEAD, OPTIONS): a read, which
// RFC 9110 lets any client repeat, so that fetching it twice harms nothing.
func safeRequest(info *types.Info, call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	id, ok := ast.Unparen(call.Args[0]).(*ast.Ident)
	if !ok {
		return false
	}
	v, index, later, ok := definition(info, id)
	if !ok || index != 0 || len(later) > 0 {
		return false
	}
	made, ok := ast.Unparen(v).(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := typeutil.Callee(info, made).(*types.Func)
	if !ok || !inPackage(fn, "net/http") {
		return false
	}
	at := -1
	switch fn.Name() {
	case "NewRequest":
		at = 0
	case "NewRequestWithContext":
		at = 1
	}
	if at < 0 || len(made.Args) <= at {
		return false
	}
	method, ok := ConstString(info, made.Args[at])
	return ok && safeMethod(method)
}

// safeMethod reports whether an HTTP method is safe (RFC 9110, 9.2.1):
// a read, which a client may repeat and a cache may answer, changing
// nothing on the server.
func safeMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "OPTIONS":
		return true
	}
	return false
}
