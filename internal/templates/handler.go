package templates

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"path"
	"strings"
	"sync"
	"text/template"

	"golang.org/x/mod/module"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// handlerFS holds the templates of the code written for one spec: per key source, the wiring
// (<slug>_idem.go), its five tests (<slug>_idem_test.go) and the business-logic skeleton
// (<slug>_work.go), plus the blocks they share (common.go.tmpl).
//
//go:embed handler/*.go.tmpl
var handlerFS embed.FS

// handlerTmpl is parsed on first use, not when the package initialises: go vet
// starts idemkit once per package, and those processes never render.
var handlerTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("handler").Funcs(template.FuncMap{
		"goDur":      goDuration,
		"seconds":    retryAfterSeconds,
		"quote":      quoteGo,
		"statusExpr": statusExpr,
		"comment":    commentText,
		"join":       strings.Join,
	}).ParseFS(handlerFS, "handler/*.go.tmpl"))
})

// HandlerOptions say where the code for one spec goes and which runtime it uses.
type HandlerOptions struct {
	// Package names the package the files go into: the one already in the target directory, or a
	// new one. main is allowed, so a small service can keep its handler beside its main function.
	Package string
	// Runtime is the import path of the generated runtime's core package (what generate runtime
	// wrote); its idemhttp package is imported from below it.
	Runtime string
	// RuntimePackage is the core package's name, when it is not idem; the generated code imports
	// it under the name idem either way, so the templates read the same for every user.
	RuntimePackage string
	// SpecPath is the spec as the generated comments cite it, slash-separated, e.g.
	// knowledge/projects/idempotency-charge-card.md.
	SpecPath string
	// Dir is the target directory relative to the module root, slash-separated, as the
	// regeneration command in the comments names it.
	Dir string
	// Version is the idemkit version written into every header.
	Version string
}

// Handler is the code generated for one spec.
type Handler struct {
	// Kind is the spec's key source: client, webhook, queue, workflow or cron.
	Kind string
	// Constructor is the function the wiring exports to build the handler, e.g. NewChargeCard.
	Constructor string
	// Files are the generated files, by name within the target directory: the wiring and its
	// tests, headed as generated and checksummed, rewritten on every regeneration.
	Files map[string][]byte
	// WorkPath and Work are the business-logic skeleton: a service type whose methods fill the
	// Options' func fields, holding the only placeholders. It is the user's file from the moment
	// it is written, so it carries no generated-code header, and the wiring never refers to it:
	// the user may rename, move or delete it. It is written at the first generation only.
	WorkPath string
	Work     []byte
}

// GenerateHandler renders the code that follows s: the wiring of the spec's key derivation, TTL,
// lease, fingerprint fields, collision answers and one derived key per downstream step around
// the generated runtime, the spec's five tests against the memory store, and a skeleton holding
// the only placeholders — where the business logic goes. Like GenerateRuntime it is pure: the
// same spec and options give the same bytes, every Go file gofmt'ed.
//
// A spec that does not validate, or that the templates cannot follow (a key field they cannot
// read, a step name Derive refuses), fails with the spec's *spec.FieldError values naming the
// field; ErrNewerSchema stays visible to errors.Is. Bad options fail with an *OptionError.
func GenerateHandler(s *spec.Spec, opts HandlerOptions) (*Handler, error) {
	if s == nil {
		return nil, errors.New("generate handler: no spec")
	}
	if err := checkHandlerOptions(opts); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := checkPayload(s); err != nil {
		return nil, err
	}
	v, err := newHandlerView(s, opts)
	if err != nil {
		return nil, err
	}
	base := strings.ReplaceAll(s.Slug, "-", "_")
	h := &Handler{Kind: s.Key.Source, Constructor: "New" + v.Op, Files: map[string][]byte{}, WorkPath: base + "_work.go"}
	v.IdemFile, v.WorkFile = base+"_idem.go", h.WorkPath
	kind := s.Key.Source
	if v.Batch {
		kind = "webhook_batch"
	}
	for _, f := range []struct{ name, tmpl string }{
		{v.IdemFile, kind + ".go.tmpl"},
		{base + "_idem_test.go", kind + "_test.go.tmpl"},
	} {
		body, err := renderGo(f.tmpl, v)
		if err != nil {
			return nil, err
		}
		if h.Files[f.name], err = withHeader(f.name, opts.Version, body); err != nil {
			return nil, err
		}
	}
	if h.Work, err = renderGo(kind+"_work.go.tmpl", v); err != nil {
		return nil, err
	}
	return h, nil
}

// checkPayload refuses a spec whose key or hash reads the body of a delivery that is not JSON
// (Salesforce's SOAP outbound messages, Twilio's form fields): the generated handlers read JSON,
// so they would answer 400 to every real delivery. A key read from a header of such a delivery,
// with no body field in the hash, needs no body parsing and is generated.
func checkPayload(s *spec.Spec) error {
	k := &s.Key
	if k.Payload == "" || k.Payload == rules.PayloadJSON {
		return nil
	}
	readsBody := k.Batch || k.In == rules.LocationBody || k.In == "" && strings.HasPrefix(k.Field, "body ") ||
		len(s.Hash.Include) > 0 || len(s.Hash.Exclude) > 0
	for _, p := range k.Parts {
		readsBody = readsBody || p.In == rules.LocationBody
	}
	if !readsBody {
		return nil
	}
	who := k.ProviderName
	if who == "" {
		who = "this sender"
	}
	what := map[string]string{rules.PayloadXML: "XML (a SOAP envelope)", rules.PayloadForm: "form fields (application/x-www-form-urlencoded)"}[k.Payload]
	if what == "" {
		what = k.Payload
	}
	msg := fmt.Sprintf("%s deliver %s, and generate handler writes receivers that read JSON bodies only: this one would answer 400 to every real delivery. "+
		"Write the receiver by hand on the generated runtime: parse the body, read each key (%s, %s)", who, what, k.Format, k.Field)
	if k.Batch {
		msg += ", claim, complete or release each event on its own with idem.Do"
	} else {
		msg += ", claim it with idem.Do"
	}
	if k.Ack != "" {
		msg += ", and answer the acknowledgement in key.ack once every event is recorded"
	}
	return &spec.FieldError{Field: "key.payload", Err: errors.New(msg)}
}

// renderGo executes one template and gofmt's the result. A template that produces code gofmt
// cannot parse is a defect of idemkit, reported with the source so it can be found.
func renderGo(name string, v *handlerView) ([]byte, error) {
	var buf bytes.Buffer
	if err := handlerTmpl().ExecuteTemplate(&buf, name, v); err != nil {
		return nil, fmt.Errorf("generate handler: %w", err)
	}
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generate handler: %s does not format: %w\n%s", name, err, buf.Bytes())
	}
	return reflowComments(out, commentWidth), nil
}

// commentWidth is where generated comments wrap, counting a tab as four columns.
const commentWidth = 100

// reflowComments rewraps the line comments of gofmt'ed source to width columns, because the
// spec's text that the templates put into comments has any length, and gofmt never rewraps. A
// paragraph is a run of "// text" lines at one indentation; a list item starts "//   - " and
// goes on in lines indented to its text. Blank comment lines, directives (//idemkit:claim) and
// other indented lines are kept as they are, as is everything that is not a comment line.
func reflowComments(src []byte, width int) []byte {
	lines := strings.Split(string(src), "\n")
	var out []string
	for i := 0; i < len(lines); {
		indent, text, kind := commentLine(lines[i])
		if kind != paragraphLine && kind != itemLine {
			out = append(out, lines[i])
			i++
			continue
		}
		first, next, follow := indent+"// ", indent+"// ", paragraphLine
		if kind == itemLine {
			first, next, follow = indent+"//   - ", indent+"//     ", itemMoreLine
		}
		words := strings.Fields(text)
		for i++; i < len(lines); i++ {
			ind, more, k := commentLine(lines[i])
			if ind != indent || k != follow {
				break
			}
			words = append(words, strings.Fields(more)...)
		}
		line := first
		for j, w := range words {
			if j > 0 && columns(line)+1+len(w) > width {
				out = append(out, line)
				line = next + w
				continue
			}
			if j > 0 {
				line += " "
			}
			line += w
		}
		out = append(out, line)
	}
	return []byte(strings.Join(out, "\n"))
}

type commentKind int

const (
	notComment    commentKind = iota
	keptLine                  // blank, a directive, or indented text that is not a list
	paragraphLine             // "// text"
	itemLine                  // "//   - text"
	itemMoreLine              // "//     text", the rest of a list item
)

// commentLine splits a line into its indentation and comment text, and says what kind it is.
func commentLine(line string) (indent, text string, kind commentKind) {
	rest := strings.TrimLeft(line, "\t")
	indent = line[:len(line)-len(rest)]
	body, ok := strings.CutPrefix(rest, "// ")
	switch {
	case !strings.HasPrefix(rest, "//"):
		return indent, "", notComment
	case !ok || strings.TrimSpace(body) == "":
		return indent, "", keptLine
	case strings.HasPrefix(body, "  - "):
		return indent, body[4:], itemLine
	case strings.HasPrefix(body, "    "):
		return indent, body, itemMoreLine
	case strings.HasPrefix(body, " "):
		return indent, "", keptLine
	}
	return indent, body, paragraphLine
}

// columns is the width of s with tabs counted as four columns.
func columns(s string) int {
	return len(s) + 3*strings.Count(s, "\t")
}

func checkHandlerOptions(opts HandlerOptions) error {
	if reason := badHandlerPackage(opts.Package); reason != "" {
		return &OptionError{"package", opts.Package, reason}
	}
	if err := module.CheckImportPath(opts.Runtime); err != nil {
		return &OptionError{"runtime", opts.Runtime, fmt.Sprintf("not a valid import path: %v", err)}
	}
	if opts.RuntimePackage != "" {
		if reason := badPackageName(opts.RuntimePackage); reason != "" {
			return &OptionError{"runtime package", opts.RuntimePackage, reason}
		}
	}
	for _, p := range []struct{ option, value string }{{"spec path", opts.SpecPath}, {"dir", opts.Dir}} {
		if p.value == "" || strings.ContainsAny(p.value, "\n\r\\") || path.IsAbs(p.value) || path.Clean(p.value) != p.value {
			return &OptionError{p.option, p.value, "want a clean slash-separated path relative to the module, on one line"}
		}
	}
	return nil
}

// badHandlerPackage is badPackageName, except that main is allowed: a handler can live in a
// command as well as in a library.
func badHandlerPackage(name string) string {
	if name == "main" {
		return ""
	}
	if name == "" {
		return "empty; name the package the files go into"
	}
	return badPackageName(name)
}
