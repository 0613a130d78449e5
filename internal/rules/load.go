package rules

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// embedded is the catalogue idemkit ships: one file per section, so that a
// change to a provider's window is a one-file diff with its reference.
//
//go:embed catalog/*.yaml
var embedded embed.FS

var defaultCatalog = sync.OnceValue(func() *Catalog {
	c, err := Load(embedded)
	if err != nil {
		panic("rules: the embedded catalogue is broken: " + err.Error())
	}
	return c
})

// Default returns the embedded catalogue, loaded and validated once. It
// panics only if the embedded YAML is broken, which TestDefault rules out.
// The result is shared: use Override to change it.
func Default() *Catalog { return defaultCatalog() }

// Load reads every .yaml file in fsys, in lexical path order, as one
// catalogue, and validates it. A file may hold any of the sections; an ID
// given twice is an error, as is any field the catalogue does not know.
func Load(fsys fs.FS) (*Catalog, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ".yaml" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load catalogue: %w", err)
	}
	if len(files) == 0 {
		return nil, errors.New("load catalogue: no .yaml files")
	}
	c := &Catalog{}
	for _, name := range files {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("load catalogue: %w", err)
		}
		if err := c.decode(name, data, false); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadOverrides applies a team's overrides (the .idemkit.yaml at its repo
// root, or --rules FILE) to the embedded catalogue. It is
// Default().Override(file, data).
func LoadOverrides(file string, data []byte) (*Catalog, error) {
	return Default().Override(file, data)
}

// Override returns a new catalogue: c with the entries of data merged in by
// ID (by name for volatile fields). An entry whose ID c already has changes
// only the fields given; an entry with a new ID is appended; defaults change
// field by field. data has the shape of a catalogue file, and the result is
// validated, so a broken override is an error naming file, line and field,
// never a half-applied catalogue. c itself is not changed.
func (c *Catalog) Override(file string, data []byte) (*Catalog, error) {
	next := &Catalog{
		KeySources:     slices.Clone(c.KeySources),
		Providers:      slices.Clone(c.Providers),
		VolatileFields: slices.Clone(c.VolatileFields),
		Stores:         slices.Clone(c.Stores),
		Collisions:     slices.Clone(c.Collisions),
		Mechanisms:     slices.Clone(c.Mechanisms),
		AntiPatterns:   slices.Clone(c.AntiPatterns),
		Targets:        slices.Clone(c.Targets),
		Presets:        slices.Clone(c.Presets),
		Checks:         slices.Clone(c.Checks),
		Defaults:       c.Defaults,
		pos:            maps.Clone(c.pos),
		seq:            c.seq,
	}
	if err := next.decode(file, data, true); err != nil {
		return nil, err
	}
	if err := next.Validate(); err != nil {
		return nil, err
	}
	return next, nil
}

// position is where an entry or a field was last written.
type position struct {
	file string
	line int
	path string // as written in that file: providers[1].retry_window
	seq  int
}

// decoder walks a yaml.Node tree into the catalogue's structs by their yaml
// tags. yaml.v3's own decoder would do, except that it drops unknown fields
// without a word and cannot tell "retries: false" from "retries" not given,
// which a merge by field needs.
type decoder struct {
	c     *Catalog
	file  string
	merge bool // match entries by ID instead of appending
}

// decode reads one catalogue file into c: appending every entry (Load), or
// merging entries by ID (Override).
func (c *Catalog) decode(file string, data []byte, merge bool) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, next yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return nil // empty, or only comments
	case err != nil:
		return syntaxError(file, err)
	}
	switch err := dec.Decode(&next); {
	case err == nil:
		return &FileError{File: file, Line: next.Line, Err: errors.New("a second YAML document (---); put every section in one document")}
	case !errors.Is(err, io.EOF):
		return syntaxError(file, err)
	}
	root := deref(doc.Content[0])
	if isNull(root) {
		return nil
	}
	d := decoder{c: c, file: file, merge: merge}
	return d.fields(root, reflect.ValueOf(c).Elem(), "", "")
}

// fields decodes a mapping node into the struct v. key is where v's own
// position is recorded ("providers[3]"), display how the file names it
// ("providers[1]"); both are empty for the catalogue itself.
func (d *decoder) fields(n *yaml.Node, v reflect.Value, key, display string) error {
	if isNull(n) {
		return nil
	}
	noun := nouns[v.Type().Name()]
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, display, "expected a mapping of %s fields, got %s", noun, kindName(n))
	}
	tags := yamlFields(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := deref(n.Content[i]), deref(n.Content[i+1])
		name := k.Value
		if k.Kind != yaml.ScalarNode {
			return d.errorf(k, display, "expected a field name, got %s", kindName(k))
		}
		idx, ok := tags[name]
		if to, was := renamed[noun+"."+name]; !ok && was {
			return &FileError{File: d.file, Line: k.Line, Field: display,
				Err: fmt.Errorf("%w: %q is now %q (same text: a documented number that differs from what is often quoted); rename the key", ErrRenamedField, name, to)}
		}
		if !ok {
			known := slices.Sorted(maps.Keys(tags))
			return &FileError{File: d.file, Line: k.Line, Field: display,
				Err: fmt.Errorf("%w %q in %s (known: %s)", ErrUnknownField, name, noun, strings.Join(known, ", "))}
		}
		if first, dup := seen[name]; dup {
			return d.errorf(k, display, "field %q given twice (first on line %d)", name, first)
		}
		seen[name] = k.Line
		fkey, fpath := join(key, name), join(display, name)
		d.record(fkey, fpath, k.Line) // before the entries inside it, which are more precise
		f := v.Field(idx)
		var err error
		switch {
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && key == "":
			err = d.list(val, f, name)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			err = d.nested(val, f, fkey, fpath)
		case f.Kind() == reflect.Struct:
			err = d.fields(val, f, fkey, fpath)
		default:
			err = d.value(val, f, fpath)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// list decodes a section's sequence of entries into the slice s. When
// merging, an entry whose ID s already holds is decoded on top of it.
func (d *decoder) list(n *yaml.Node, s reflect.Value, section string) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errorf(n, section, "expected a list of entries, got %s", kindName(n))
	}
	fields := yamlFields(s.Type().Elem())
	idField := "id"
	if _, ok := fields["id"]; !ok {
		idField = "name" // volatile fields are known by name
	}
	idIndex := fields[idField]
	for i, item := range n.Content {
		item = deref(item)
		display := fmt.Sprintf("%s[%d]", section, i)
		if item.Kind != yaml.MappingNode {
			return d.errorf(item, display, "expected a mapping of fields, got %s", kindName(item))
		}
		at := -1
		if id := scalarField(item, idField); d.merge && id != "" {
			for j := range s.Len() {
				if s.Index(j).Field(idIndex).String() == id {
					at = j
				}
			}
		}
		if at < 0 {
			s.Set(reflect.Append(s, reflect.Zero(s.Type().Elem())))
			at = s.Len() - 1
		}
		key := fmt.Sprintf("%s[%d]", section, at)
		d.record(key, display, item.Line)
		e := s.Index(at)
		if err := d.fields(item, e, key, display); err != nil {
			return err
		}
		if line := e.FieldByName("Line"); line.IsValid() {
			line.SetInt(int64(item.Line))
		}
	}
	return nil
}

// nested decodes a list of structs inside an entry (a provider's key
// parts, its delivery fields). Such a list has no IDs to merge by, so an
// override that gives it replaces it whole.
func (d *decoder) nested(n *yaml.Node, s reflect.Value, key, display string) error {
	if isNull(n) {
		s.SetZero()
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		return d.errorf(n, display, "expected a list, got %s", kindName(n))
	}
	s.Set(reflect.MakeSlice(s.Type(), len(n.Content), len(n.Content)))
	for i, item := range n.Content {
		ikey, idisplay := fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("%s[%d]", display, i)
		d.record(ikey, idisplay, item.Line)
		if err := d.fields(deref(item), s.Index(i), ikey, idisplay); err != nil {
			return err
		}
	}
	return nil
}

// value decodes a scalar, a list of strings or a free-form mapping into f.
func (d *decoder) value(n *yaml.Node, f reflect.Value, path string) error {
	if f.Type() == reflect.TypeFor[Duration]() {
		v, err := durationNode(n)
		if err != nil {
			return &FileError{File: d.file, Line: n.Line, Field: path, Err: err}
		}
		f.SetInt(int64(v))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			return d.errorf(n, path, "expected text, got %s", kindName(n))
		}
		f.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
			return d.errorf(n, path, "expected true or false, got %s", kindName(n))
		}
		f.SetBool(b)
	case reflect.Int:
		var i int
		if n.Kind != yaml.ScalarNode || n.Decode(&i) != nil {
			return d.errorf(n, path, "expected a whole number, got %s", kindName(n))
		}
		f.SetInt(int64(i))
	case reflect.Slice: // []string
		if isNull(n) {
			f.SetZero()
			return nil
		}
		if n.Kind != yaml.SequenceNode {
			return d.errorf(n, path, "expected a list, got %s", kindName(n))
		}
		out := make([]string, 0, len(n.Content))
		for i, e := range n.Content {
			if e = deref(e); e.Kind != yaml.ScalarNode {
				return d.errorf(e, fmt.Sprintf("%s[%d]", path, i), "expected text, got %s", kindName(e))
			}
			out = append(out, e.Value)
		}
		f.Set(reflect.ValueOf(out))
	case reflect.Map: // preset answers: kept raw for design to decode
		if n.Kind != yaml.MappingNode {
			return d.errorf(n, path, "expected a mapping, got %s", kindName(n))
		}
		m := reflect.New(f.Type())
		if err := n.Decode(m.Interface()); err != nil {
			return d.errorf(n, path, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
		}
		f.Set(m.Elem())
	default:
		panic("rules: no decoder for " + f.Type().String())
	}
	return nil
}

func (d *decoder) record(key, path string, line int) {
	if d.c.pos == nil {
		d.c.pos = map[string]position{}
	}
	d.c.seq++
	d.c.pos[key] = position{file: d.file, line: line, path: path, seq: d.c.seq}
}

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) error {
	return &FileError{File: d.file, Line: n.Line, Field: path, Err: fmt.Errorf(format, args...)}
}

// renamed maps a field's old name, "noun.name", to its new one, so that an
// override written for an earlier release is told what to write instead
// of that the field is unknown. A renamed field is an error, not an alias:
// two spellings of one field would be two to document and merge.
var renamed = map[string]string{
	"provider.seed_disagreement": "correction",
}

// nouns names each entry type in messages.
var nouns = map[string]string{
	"Catalog":         "catalogue",
	"KeySource":       "key source",
	"Provider":        "provider",
	"VolatileField":   "volatile field",
	"Store":           "store",
	"Collision":       "collision",
	"Mechanism":       "mechanism",
	"AntiPattern":     "anti-pattern",
	"Preset":          "preset",
	"Check":           "check",
	"Defaults":        "defaults",
	"Target":          "target",
	"Location":        "location",
	"ProviderKey":     "provider key",
	"WindowSource":    "window",
	"DeliveryField":   "delivery field",
	"CollisionAnswer": "collision answer",
	"Busy":            "busy answer",
	"Consumer":        "consumer",
}

// yamlFields maps the yaml names of t's fields to their index; fields
// tagged "-" and unexported ones are not part of the file format.
func yamlFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if f.IsExported() && name != "" && name != "-" {
			out[name] = i
		}
	}
	return out
}

// scalarField returns the value of the scalar field name of mapping n.
func scalarField(n *yaml.Node, name string) string {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := deref(n.Content[i]), deref(n.Content[i+1]); k.Value == name && v.Kind == yaml.ScalarNode {
			return v.Value
		}
	}
	return ""
}

// deref follows an alias (*anchor) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}
