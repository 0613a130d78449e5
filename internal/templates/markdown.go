package templates

import (
	"strings"
	"unicode"
)

// The helpers below put user text (operation, step and field names,
// rationales) into markdown and Mermaid without letting it change their
// structure: a newline cannot end a list item or table row early, a pipe
// cannot add a cell, a "<" cannot open an HTML comment that hides the rest of
// the document, and nothing can leave the Mermaid block or start a new
// statement in it. Text is otherwise left alone, so that the markdown a
// rationale may hold (`code`, *emphasis*) still renders.

// oneLine replaces control characters (newlines, tabs, C1 controls) and
// Unicode line and paragraph separators with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// inline is user text as markdown inline content on one line. Pipes are
// escaped everywhere, not only in tables, so that a line of text can never
// be read as a table row.
func inline(s string) string {
	s = oneLine(s)
	s = strings.ReplaceAll(s, "<", "&lt;")
	return strings.ReplaceAll(s, "|", `\|`)
}

// heading is user text at the end of an ATX heading, where a closing run of
// "#" would otherwise be dropped.
func heading(s string) string {
	s = strings.TrimRight(inline(s), " ")
	if trimmed := strings.TrimRight(s, "#"); trimmed != s {
		return trimmed + `\` + s[len(trimmed):]
	}
	return s
}

// paragraph is user text that starts a line, where a leading "#", "-", ">",
// "|", a fence or "1." would turn it into a heading, list, quote, table or
// code block; the marker is backslash-escaped instead.
func paragraph(s string) string {
	s = strings.TrimLeft(inline(s), " ")
	if s == "" {
		return s
	}
	if strings.IndexByte("#>-+*=|`~_", s[0]) >= 0 {
		return `\` + s
	}
	digits := strings.TrimLeft(s, "0123456789")
	if len(digits) < len(s) && (strings.HasPrefix(digits, ".") || strings.HasPrefix(digits, ")")) {
		return s[:len(s)-len(digits)] + `\` + digits
	}
	return s
}

// cell is user text as the content of a table cell; an empty cell shows a
// dash, so that a missing value reads as missing.
func cell(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return inline(s)
}

// code is user text as a code span, fenced with more backticks than it
// holds, so that backticks inside it cannot end it.
func code(s string) string {
	s = oneLine(s)
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// codeCell is a code span inside a table cell. GFM splits a row on every
// unescaped pipe, even inside a code span, and removes the backslash of an
// escaped one before reading the span, so the span shows the pipe as typed.
func codeCell(s string) string {
	return strings.ReplaceAll(code(s), "|", `\|`)
}

// mermaidText is user text as a Mermaid sequence-diagram message. Only
// letters, digits, spaces and punctuation with no meaning to Mermaid are
// kept: ";" and newlines end statements, "#" starts an entity, "%%" a
// comment, "<" and ">" make arrows or HTML, and a backtick could close the
// fenced block. Runs of hyphens collapse to one so that no arrow ("--",
// "->>") survives. An empty result becomes fallback.
func mermaidText(s, fallback string) string {
	return mermaidKeep(s, "_.,:/(){}[]'+@=?!*$-", fallback)
}

// mermaidLabel is a participant's display name. Labels are stricter than
// messages: Mermaid reads ",", ":", "-", "+", "@" and braces in a
// participant line as syntax, so they become spaces.
func mermaidLabel(s, fallback string) string {
	return mermaidKeep(s, "_.()/'", fallback)
}

func mermaidKeep(s, punct, fallback string) string {
	var b strings.Builder
	last := ' '
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune(punct, r) {
			r = ' '
		}
		if (r == ' ' || r == '-') && r == last {
			continue
		}
		b.WriteRune(r)
		last = r
	}
	if out := strings.TrimSpace(b.String()); out != "" {
		return out
	}
	return fallback
}

// linkTarget percent-encodes what would end or break a link destination:
// spaces, controls, parentheses, angle brackets, backslashes and quotes.
func linkTarget(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>\"`+"`", c) >= 0 {
			b.WriteString("%")
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
