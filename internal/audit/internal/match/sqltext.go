package match

import (
	"slices"
	"strings"
	"unicode"
)

// Verb is what a SQL statement does.
type Verb uint8

// The verbs the checks tell apart; anything else is VerbOther.
const (
	VerbOther Verb = iota
	Select
	Insert
	Update
	Delete
)

func (v Verb) String() string {
	switch v {
	case Select:
		return "SELECT"
	case Insert:
		return "INSERT"
	case Update:
		return "UPDATE"
	case Delete:
		return "DELETE"
	}
	return "SQL"
}

// Statement is what idemkit needs to know of a SQL statement to tell a
// check from an act and a racy act from an atomic one. It is read from
// constant text by ParseSQL, with a tokenizer rather than a grammar: the
// statements in question are short, and a statement it cannot read is
// VerbOther, which no check reports.
type Statement struct {
	Verb Verb
	// Table is the table read (the first FROM at the outermost level that
	// has one, so SELECT EXISTS (SELECT 1 FROM t ...) reads t), inserted
	// into, updated or deleted from: lowercase, without schema or quotes.
	Table string
	// ForUpdate marks a SELECT with a locking clause (FOR UPDATE, FOR
	// SHARE, FOR NO KEY UPDATE, FOR KEY SHARE). It locks the rows that
	// exist; a row that does not yet exist cannot be locked, so it does not
	// stop two retries that both find nothing.
	ForUpdate bool
	// Conditional marks an INSERT that is atomic about an existing row: ON
	// CONFLICT, ON DUPLICATE KEY UPDATE, INSERT IGNORE, INSERT OR IGNORE or
	// OR REPLACE, REPLACE INTO, or an INSERT ... SELECT ... WHERE NOT EXISTS.
	Conditional bool
	// Columns are an INSERT's column list, or the columns a SELECT, UPDATE
	// or DELETE compares in its WHERE clause.
	Columns []string
	// Assigned are the columns an UPDATE's SET clause assigns.
	Assigned []string
	// Guarded marks an UPDATE whose WHERE clause compares a version column
	// (version, lock_version, revision, etag, xmin) or a column it also
	// assigns (SET status = 'done' WHERE status = 'pending'): a
	// compare-and-set, which a concurrent writer makes match no row.
	Guarded bool
	// Increments marks an UPDATE that adds to what a column holds
	// (SET refunded = refunded + $2, SET tags = tags || $1): done twice,
	// it adds twice.
	Increments bool
	// SetLiterals are the string literals an UPDATE's SET list assigns, by
	// column (SET status = 'sent' gives status: sent); nil for other SQL.
	SetLiterals map[string]string
}

// ParseSQL classifies constant SQL text.
func ParseSQL(text string) Statement {
	toks := tokenize(text)
	var st Statement
	verbAt := -1
	for i, t := range toks {
		if t.depth != 0 || t.kind != word {
			continue
		}
		switch t.upper {
		case "SELECT":
			st.Verb = Select
		case "INSERT":
			st.Verb = Insert
		case "REPLACE":
			st.Verb, st.Conditional = Insert, true
		case "UPDATE":
			st.Verb = Update
		case "DELETE":
			st.Verb = Delete
		default:
			continue
		}
		verbAt = i
		break
	}
	if verbAt < 0 {
		return Statement{}
	}
	rest := toks[verbAt+1:]
	switch st.Verb {
	case Select:
		st.selectFrom(rest)
	case Insert:
		st.insertInto(rest)
	case Update:
		if i := nextWord(rest, 0, "ONLY"); i >= 0 {
			rest = rest[i:]
		}
		st.Table, _ = tableName(rest, 0)
		if i := indexWord(rest, 0, "SET"); i >= 0 {
			st.Assigned = assigned(rest[i+1:])
			st.SetLiterals = setLiterals(rest[i+1:])
			st.Increments = increments(rest[i+1:])
		}
		st.Columns = whereColumns(rest, 0)
		st.Guarded = slices.ContainsFunc(st.Columns, func(c string) bool {
			return versionColumn(c) || slices.Contains(st.Assigned, c)
		})
	case Delete:
		if i := indexWord(rest, 0, "FROM"); i >= 0 {
			st.Table, _ = tableName(rest, i+1)
		}
		st.Columns = whereColumns(rest, 0)
	}
	return st
}

func (st *Statement) selectFrom(toks []token) {
	depth := -1
	at := -1
	for i, t := range toks {
		if t.kind == word && t.upper == "FROM" && (depth < 0 || t.depth < depth) {
			depth, at = t.depth, i
		}
		if t.kind == word && t.upper == "FOR" && i+1 < len(toks) {
			switch toks[i+1].upper {
			case "UPDATE", "SHARE", "NO", "KEY":
				st.ForUpdate = true
			}
		}
	}
	if at < 0 {
		return
	}
	st.Table, _ = tableName(toks, at+1)
	st.Columns = whereColumns(toks[at:], depth)
}

func (st *Statement) insertInto(toks []token) {
	i := 0
	for i < len(toks) && toks[i].kind == word && toks[i].upper != "INTO" {
		if toks[i].upper == "IGNORE" { // INSERT IGNORE, INSERT OR IGNORE
			st.Conditional = true
		}
		if toks[i].upper == "REPLACE" { // INSERT OR REPLACE
			st.Conditional = true
		}
		i++
	}
	if i < len(toks) && toks[i].upper == "INTO" {
		i++
	}
	var next int
	st.Table, next = tableName(toks, i)
	if next < len(toks) && toks[next].text == "(" {
		for j := next + 1; j < len(toks) && toks[j].text != ")"; j++ {
			if toks[j].kind == word {
				st.Columns = append(st.Columns, strings.ToLower(toks[j].text))
			}
		}
	}
	for j, t := range toks {
		if t.kind != word {
			continue
		}
		switch {
		case t.upper == "ON" && j+1 < len(toks) && (toks[j+1].upper == "CONFLICT" || toks[j+1].upper == "DUPLICATE"):
			st.Conditional = true
		case t.upper == "NOT" && j+1 < len(toks) && toks[j+1].upper == "EXISTS":
			st.Conditional = true
		}
	}
}

// tableName reads a possibly qualified table name starting at toks[i] and
// returns its last part, lowercase, and the index after it.
func tableName(toks []token, i int) (string, int) {
	name := ""
	for i < len(toks) && toks[i].kind == word {
		name = strings.ToLower(toks[i].text)
		i++
		if i+1 < len(toks) && toks[i].text == "." {
			i++
			continue
		}
		break
	}
	return name, i
}

// whereColumns returns the columns compared with = (or IS, IN) in the first
// WHERE at the given depth, up to the end of that clause.
func whereColumns(toks []token, depth int) []string {
	at := -1
	for i, t := range toks {
		if t.depth == depth && t.kind == word && t.upper == "WHERE" {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	var cols []string
	for i := at + 1; i < len(toks); i++ {
		t := toks[i]
		if t.depth < depth {
			break
		}
		if t.depth == depth && t.kind == word && slices.Contains(clauseEnds, t.upper) {
			break
		}
		if t.kind != word || i+1 >= len(toks) {
			continue
		}
		next := toks[i+1]
		if next.text == "." { // a qualifier: the column follows it
			continue
		}
		if slices.Contains(comparisons, next.text) || (next.kind == word && (next.upper == "IS" || next.upper == "IN")) {
			cols = append(cols, strings.ToLower(t.text))
		}
	}
	return cols
}

// assigned returns the columns of an UPDATE's SET list.
func assigned(toks []token) []string {
	var cols []string
	for i := 0; i+1 < len(toks); i++ {
		t := toks[i]
		if t.depth == 0 && t.kind == word && (t.upper == "WHERE" || slices.Contains(clauseEnds, t.upper)) {
			break
		}
		if t.depth == 0 && t.kind == word && toks[i+1].text == "=" {
			cols = append(cols, strings.ToLower(t.text))
		}
	}
	return cols
}

// setLiterals reads the string literals a SET list (toks, after SET)
// assigns, by column, up to the WHERE.
func setLiterals(toks []token) map[string]string {
	out := map[string]string{}
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.depth == 0 && t.kind == word && (t.upper == "WHERE" || slices.Contains(clauseEnds, t.upper)) {
			break
		}
		if v, ok := stringLiteral(toks[i+2]); ok && t.depth == 0 && t.kind == word && toks[i+1].text == "=" {
			out[strings.ToLower(t.text)] = v
		}
	}
	return out
}

// increments reports whether an UPDATE's SET list assigns a column an
// expression that adds to or appends to that same column: col = col + x,
// col = col - x, col = col || x, col = array_append(col, x).
func increments(toks []token) bool {
	for i := 0; i+2 < len(toks); i++ {
		t := toks[i]
		if t.depth == 0 && t.kind == word && (t.upper == "WHERE" || slices.Contains(clauseEnds, t.upper)) {
			return false
		}
		if t.depth != 0 || t.kind != word || toks[i+1].text != "=" {
			continue
		}
		col := t.upper
		if versionColumn(strings.ToLower(col)) || slices.ContainsFunc(Words(strings.ToLower(col)), func(w string) bool {
			return w == "attempts" || w == "attempt" || w == "retries" || w == "tries" || w == "deliveries"
		}) {
			continue // counting writes or tries is bookkeeping, not the work
		}
		// the expression runs to the next comma at this depth
		for j := i + 2; j < len(toks); j++ {
			u := toks[j]
			if u.depth == 0 && (u.text == "," || u.kind == word && (u.upper == "WHERE" || slices.Contains(clauseEnds, u.upper))) {
				break
			}
			if u.kind == word && u.upper == col && j+1 < len(toks) {
				switch toks[j+1].text {
				case "+", "-", "||", "|":
					return true
				}
			}
			if u.kind == word && (u.upper == "ARRAY_APPEND" || u.upper == "ARRAY_CAT") {
				return true
			}
		}
	}
	return false
}

var (
	clauseEnds  = []string{"ORDER", "GROUP", "LIMIT", "FOR", "RETURNING", "HAVING", "UNION", "FROM", "OFFSET"}
	comparisons = []string{"=", "<>", "!=", "<", ">", "<=", ">="}
)

// versionColumn reports whether a column counts writes (optimistic
// locking): version, lock_version, row_version, revision, etag, xmin.
func versionColumn(name string) bool {
	ws := Words(name)
	if len(ws) == 0 {
		return false
	}
	switch ws[len(ws)-1] {
	case "version", "revision", "etag", "xmin":
		return true
	}
	return false
}

// nextWord returns the index after toks[i] when it is the keyword kw, else
// -1.
func nextWord(toks []token, i int, kw string) int {
	if i < len(toks) && toks[i].kind == word && toks[i].upper == kw {
		return i + 1
	}
	return -1
}

// indexWord returns the index of the first keyword kw at depth, else -1.
func indexWord(toks []token, depth int, kw string) int {
	for i, t := range toks {
		if t.depth == depth && t.kind == word && t.upper == kw {
			return i
		}
	}
	return -1
}

type tokenKind uint8

const (
	word    tokenKind = iota + 1 // keyword or identifier, quoted or not
	literal                      // string or number
	punct                        // operator, parenthesis, placeholder
)

type token struct {
	kind  tokenKind
	text  string // an identifier's name without its quotes
	upper string // text in upper case, for keywords
	depth int    // parentheses around the token
}

// tokenize splits SQL into words, literals and punctuation, dropping
// comments and recording each token's parenthesis depth.
func tokenize(s string) []token {
	var toks []token
	depth := 0
	add := func(k tokenKind, text string) {
		toks = append(toks, token{kind: k, text: text, upper: strings.ToUpper(text), depth: depth})
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(s)
			}
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == '\'':
			j := i + 1
			for j < len(s) && (s[j] != '\'' || (j+1 < len(s) && s[j+1] == '\'')) {
				if s[j] == '\'' {
					j++ // a doubled quote
				}
				j++
			}
			add(literal, s[i:min(j+1, len(s))])
			i = j + 1
		case c == '"' || c == '`':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			add(word, s[i+1:i+1+j])
			i += j + 2
		case c == '(':
			add(punct, "(")
			depth++
			i++
		case c == ')':
			depth = max(depth-1, 0)
			add(punct, ")")
			i++
		case isWordStart(rune(c)):
			j := i
			for j < len(s) && isWordPart(rune(s[j])) {
				j++
			}
			add(word, s[i:j])
			i = j
		case unicode.IsDigit(rune(c)):
			j := i
			for j < len(s) && (unicode.IsDigit(rune(s[j])) || s[j] == '.') {
				j++
			}
			add(literal, s[i:j])
			i = j
		case unicode.IsSpace(rune(c)):
			i++
		default:
			j := i + 1
			if j < len(s) && strings.ContainsRune("=<>!", rune(s[j])) && strings.ContainsRune("<>!", rune(c)) {
				j++ // <=, >=, <>, !=
			}
			if c == '$' || c == '?' || c == '@' || c == ':' { // placeholders: $1, ?, @name, :name
				for j < len(s) && isWordPart(rune(s[j])) {
					j++
				}
			}
			add(punct, s[i:j])
			i = j
		}
	}
	return toks
}

func isWordStart(r rune) bool { return r == '_' || unicode.IsLetter(r) || r >= 0x80 }
func isWordPart(r rune) bool  { return isWordStart(r) || unicode.IsDigit(r) || r == '$' }
