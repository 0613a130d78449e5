package spec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// ErrNewerSchema marks a spec whose front matter was written by a newer
// idemkit: its fields may mean things this version does not know, so it is
// refused rather than half read.
var ErrNewerSchema = errors.New("written by a newer idemkit")

// ErrNoFrontMatter marks a file that does not start with a "---" line, so it
// is not a spec at all (or its front matter was lost in an edit).
var ErrNoFrontMatter = errors.New(`no front matter: a spec starts with a "---" line`)

// ParseError is one problem in a spec's front matter, located so that an
// engineer can go straight to it: Line is the line in the whole file
// (counting the opening "---" as line 1) and Field the dotted path of the
// field, e.g. "ttl.duration" or "downstream[2].key"; Field is empty for
// problems with the file's shape.
type ParseError struct {
	Line  int
	Field string
	Err   error
}

// Error reads "line 12: ttl.duration: invalid duration ...".
func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("line %d: %s: %v", e.Line, e.Field, e.Err)
}

// Unwrap lets errors.Is see the cause, e.g. ErrNewerSchema or rules.ErrForever.
func (e *ParseError) Unwrap() error { return e.Err }

// Parse reads a spec file: the YAML front matter between the opening "---"
// line and the next "---" line. The markdown body after it is ignored,
// because it is rendered from the front matter and holds nothing more.
// Unknown fields are errors, since a misspelt field would otherwise be
// silently dropped from the design. Every problem found is returned, each a
// *ParseError, joined with errors.Join when there are several.
func Parse(data []byte) (*Spec, error) {
	front, err := frontMatter(data)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, syntaxError(err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &ParseError{Line: 2, Err: errors.New("empty front matter")}
	}
	root := doc.Content[0]
	if err := checkSchema(root); err != nil {
		return nil, err
	}
	var s Spec
	d := decoder{}
	d.value(root, reflect.ValueOf(&s).Elem(), "")
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	return &s, nil
}

// frontMatter returns the YAML between the "---" lines. Line endings are
// normalised first so that a checkout with CRLF line endings still parses
// with the same line numbers.
func frontMatter(data []byte) ([]byte, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(data, []byte("---\n"))
	if !ok {
		return nil, &ParseError{Line: 1, Err: ErrNoFrontMatter}
	}
	if bytes.HasPrefix(rest, []byte("---\n")) || bytes.Equal(rest, []byte("---")) {
		return nil, &ParseError{Line: 2, Err: errors.New("empty front matter")}
	}
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if !bytes.HasSuffix(rest, []byte("\n---")) {
			return nil, &ParseError{Line: bytes.Count(data, []byte("\n")) + 1, Err: errors.New(`front matter is not closed by a "---" line`)}
		}
		end = len(rest) - len("\n---")
	}
	return rest[:end+1], nil
}

// yamlLine matches the "line N: " that yaml.v3 and rules.Duration put in
// front of their messages; ParseError carries the line itself, counted in
// the whole file.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

func syntaxError(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return &ParseError{Line: n + 1, Err: errors.New(msg[len(m[0]):])}
	}
	return &ParseError{Line: 2, Err: errors.New(strings.TrimPrefix(msg, "yaml: "))}
}

// checkSchema refuses a newer schema before anything else is read: its
// unknown fields would otherwise drown the one message that matters.
func checkSchema(root *yaml.Node) error {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "schema" {
			continue
		}
		v := root.Content[i+1]
		var n int
		if v.Decode(&n) == nil && n > SchemaVersion {
			return &ParseError{Line: v.Line + 1, Field: "schema", Err: fmt.Errorf("%w (schema %d); upgrade idemkit", ErrNewerSchema, n)}
		}
	}
	return nil
}

// decoder walks the YAML tree beside the Spec type, so that each problem is
// reported with the path of its field, which yaml.v3's own errors lack.
// Scalars are still decoded by yaml.v3 (and rules.Duration), so values mean
// exactly what they would mean to yaml.Unmarshal.
type decoder struct {
	errs []error
}

func (d *decoder) fail(n *yaml.Node, field string, err error) {
	d.errs = append(d.errs, &ParseError{Line: n.Line + 1, Field: field, Err: err})
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func (d *decoder) value(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	switch {
	case reflect.PointerTo(v.Type()).Implements(unmarshalerType):
		d.scalar(n, v, field)
	case v.Kind() == reflect.Struct:
		d.mapping(n, v, field)
	case v.Kind() == reflect.Slice:
		d.sequence(n, v, field)
	default:
		d.scalar(n, v, field)
	}
}

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.ScalarNode {
		d.fail(n, field, fmt.Errorf("expected a single value, found a %s", kindName(n.Kind)))
		return
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		d.fail(n, field, withoutLine(err))
	}
}

// withoutLine drops the "line N: " prefix from yaml.v3's and rules.Duration's
// messages, keeping the wrapped cause when there is one.
func withoutLine(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs := make([]string, len(te.Errors))
		for i, m := range te.Errors {
			msgs[i] = yamlLine.ReplaceAllString(m, "")
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	if yamlLine.MatchString(err.Error()) {
		if inner := errors.Unwrap(err); inner != nil {
			return inner
		}
		return errors.New(yamlLine.ReplaceAllString(err.Error(), ""))
	}
	return err
}

func (d *decoder) mapping(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, orTop(field), fmt.Errorf("expected fields, found a %s", kindName(n.Kind)))
		return
	}
	fields := yamlFields(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		name := join(field, k.Value)
		if first, dup := seen[k.Value]; dup {
			d.fail(k, name, fmt.Errorf("set twice (first at line %d)", first+1))
			continue
		}
		seen[k.Value] = k.Line
		idx, ok := fields[k.Value]
		if !ok || k.Kind != yaml.ScalarNode {
			d.fail(k, name, fmt.Errorf("unknown field; known fields here: %s", strings.Join(fieldNames(fields), ", ")))
			continue
		}
		d.value(val, v.Field(idx), name)
	}
}

func (d *decoder) sequence(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.SequenceNode {
		d.fail(n, field, fmt.Errorf("expected a list, found a %s", kindName(n.Kind)))
		return
	}
	if len(n.Content) == 0 {
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", field, i))
	}
	v.Set(s)
}

// yamlFields maps the YAML names of t's fields to their indexes.
func yamlFields(t reflect.Type) map[string]int {
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	return m
}

func fieldNames(fields map[string]int) []string {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return fields[a] - fields[b] })
	return names
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func orTop(field string) string {
	if field == "" {
		return "front matter"
	}
	return field
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "single value"
	}
	return "document"
}
