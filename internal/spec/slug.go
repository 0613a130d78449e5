package spec

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxSlugLen caps a slug so that idempotency-<slug>.md stays well inside
// every file system's name limit and readable in a directory listing.
const MaxSlugLen = 64

// ErrEmptySlug is returned by Slug when nothing of the operation name can be
// written in ASCII: the name is only punctuation, or only in a script idemkit
// does not transliterate.
var ErrEmptySlug = errors.New("no ASCII letters or digits left to make a file name from")

// letterFolds are the Latin letters that Unicode decomposition does not
// reduce to an ASCII base letter, written the way they are usually spelled
// out.
var letterFolds = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'đ': "d", 'ð': "d",
	'ł': "l", 'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŀ': "l", 'ĸ': "k",
}

// Slug turns an operation name into the part of a file name that identifies
// its spec. The result holds only lowercase ASCII letters, digits and single
// hyphens, so it can never name another directory ("../", "/", "\") or hide
// a file ("."): anything else becomes a hyphen, simple accented Latin
// letters are transliterated (é→e, ü→u, ß→ss) and other scripts are dropped.
// Names that leave nothing behind are an error, because a spec file called
// "idempotency-.md" would be shared by every such operation.
func Slug(operation string) (string, error) {
	var b strings.Builder
	hyphen := false
	write := func(s string) {
		for _, r := range s {
			switch {
			case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				if hyphen && b.Len() > 0 {
					b.WriteByte('-')
				}
				hyphen = false
				b.WriteRune(r)
			case r < unicode.MaxASCII || unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
				hyphen = true
			}
		}
	}
	for _, r := range norm.NFKD.String(operation) {
		r = unicode.ToLower(r)
		if s, ok := letterFolds[r]; ok {
			write(s)
			continue
		}
		write(string(r))
	}
	s := b.String()
	if s == "" {
		return "", fmt.Errorf("operation %q: %w; name it in ASCII, e.g. \"charge-card\"", operation, ErrEmptySlug)
	}
	if len(s) > MaxSlugLen {
		s = strings.TrimRight(s[:MaxSlugLen], "-")
	}
	return s, nil
}

// ValidSlug reports why slug could not have come from Slug, so that a spec
// edited by hand cannot point its file name outside knowledge/projects.
func ValidSlug(slug string) error {
	switch {
	case slug == "":
		return errors.New("empty slug")
	case len(slug) > MaxSlugLen:
		return fmt.Errorf("slug %q is longer than %d characters", slug, MaxSlugLen)
	case slug[0] == '-' || slug[len(slug)-1] == '-':
		return fmt.Errorf("slug %q starts or ends with a hyphen", slug)
	case strings.Contains(slug, "--"):
		return fmt.Errorf("slug %q has a double hyphen", slug)
	}
	for _, r := range slug {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("slug %q has %q; only lowercase ASCII letters, digits and hyphens are allowed", slug, r)
		}
	}
	return nil
}

// FileName is the name of the spec file for slug inside knowledge/projects.
// slug must come from Slug (or pass ValidSlug); FileName does not check it
// again, so callers that read a slug from a file validate it first.
func FileName(slug string) string {
	return "idempotency-" + slug + ".md"
}
