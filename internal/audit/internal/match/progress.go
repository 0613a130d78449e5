package match

import (
	"slices"
	"strings"
)

// progressWords mark a value that records a key as taken but not finished:
// 'in_progress', 'processing', "pending", "started", "running", "claimed".
var progressWords = []string{"progress", "processing", "pending", "started", "running", "claimed", "locked"}

// InProgress reports whether a status value (a SQL literal, a Redis value,
// a Go constant) says that the work behind a key has begun and not yet
// finished, which makes the write that stores it a claim.
func InProgress(value string) bool {
	ws := Words(value)
	return slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(progressWords, w) }) ||
		strings.Contains(strings.Join(ws, ""), "inflight")
}

// Literals returns the string literals of SQL text, without their quotes,
// in order: the values an INSERT or UPDATE writes when they are written in
// the statement rather than passed as arguments.
func Literals(text string) []string {
	var out []string
	for _, t := range tokenize(text) {
		if s, ok := stringLiteral(t); ok {
			out = append(out, s)
		}
	}
	return out
}

// stringLiteral returns the value of a token that is a quoted SQL string.
func stringLiteral(t token) (string, bool) {
	if t.kind != literal || !strings.HasPrefix(t.text, "'") {
		return "", false
	}
	return strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(t.text, "'"), "'"), "''", "'"), true
}
