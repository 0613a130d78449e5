package rules

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The classes of catalogue error, for errors.Is. Each is wrapped in a
// *FileError that says where, and completed with what and why.
var (
	// ErrUnknownField is a key the catalogue does not have: almost always a
	// typo that would otherwise be dropped without a word.
	ErrUnknownField = errors.New("unknown field")
	// ErrRenamedField is a field an earlier release knew under this name;
	// the message gives the new one.
	ErrRenamedField = errors.New("renamed field")
	// ErrMissingField is a required field left out or empty.
	ErrMissingField = errors.New("missing required field")
	// ErrDuplicateID is a second entry with an ID already in its section,
	// which lookups would silently shadow.
	ErrDuplicateID = errors.New("duplicate id")
	// ErrUnknownRef is an ID that names no entry of the section it points
	// into (a provider's source, a preset's store, an anti-pattern).
	ErrUnknownRef = errors.New("unknown reference")
)

// FileError is a problem in a catalogue file: where it is (file, line and
// the field's path, e.g. providers[1].retry_window) and what is wrong. A
// team fixes its .idemkit.yaml from this message alone, so it names the
// value, the rule and how to write it right.
type FileError struct {
	File  string // the file as given to Load or Override, e.g. ".idemkit.yaml"
	Line  int    // 1-based; 0 when unknown (a Catalog built in Go)
	Field string // path of the field or entry, e.g. "providers[1].retry_window"
	Err   error
}

// Error reads "file:line: field: problem", leaving out the parts not known.
func (e *FileError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap gives errors.Is and errors.As the cause.
func (e *FileError) Unwrap() error { return e.Err }

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns a yaml.v3 parse error ("yaml: line 3: ...") into a
// FileError, so that every error from a file reads the same way.
func syntaxError(file string, err error) *FileError {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &FileError{File: file, Line: line, Err: fmt.Errorf("invalid YAML: %s", m[2])}
	}
	return &FileError{File: file, Err: fmt.Errorf("invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))}
}
