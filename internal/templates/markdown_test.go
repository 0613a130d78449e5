package templates

import "testing"

func TestEscapers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		fn   func(string) string
		in   string
		want string
	}{
		{"inline newline", inline, "a\nb\r\nc\u2028d\u0085e", "a b  c d e"},
		{"inline pipe", inline, "a | b", `a \| b`},
		{"inline html comment", inline, "x <!-- hide", "x &lt;!-- hide"},
		{"inline keeps markdown", inline, "use `SET NX` *now*", "use `SET NX` *now*"},
		{"cell empty", cell, "  ", "—"},
		{"cell pipe after backslash", cell, `a\|b`, `a\\|b`},
		{"code plain", code, "{key}:charge", "`{key}:charge`"},
		{"code with backticks", code, "a ``b`` c", "```a ``b`` c```"},
		{"code edge backtick", code, "`x", "`` `x ``"},
		{"code newline", code, "a\nb", "`a b`"},
		{"code empty", code, "", "—"},
		{"code keeps pipe outside tables", code, "a|b", "`a|b`"},
		{"codeCell pipe", codeCell, "a|b", "`a\\|b`"},
		{"heading closing hashes", heading, "charge ##", `charge \##`},
		{"heading plain", heading, "charge card", "charge card"},
		{"paragraph heading", paragraph, "## Pwned", `\## Pwned`},
		{"paragraph list", paragraph, "- item", `\- item`},
		{"paragraph ordered", paragraph, "12. item", `12\. item`},
		{"paragraph indented code", paragraph, "    code", "code"},
		{"paragraph fence", paragraph, "```go", "\\```go"},
		{"paragraph number in prose", paragraph, "3 retries", "3 retries"},
		{"paragraph entity stays", paragraph, "<b>", "&lt;b>"},
		{"mermaid statement break", func(s string) string { return mermaidText(s, "?") }, "a; participant X\nB->>C: hi", "a participant X B- C: hi"},
		{"mermaid comment and entity", func(s string) string { return mermaidText(s, "?") }, "%% #59; `x`", "59 x"},
		{"mermaid arrows", func(s string) string { return mermaidText(s, "?") }, "a-->>b --> c", "a- b - c"},
		{"mermaid keeps keys", func(s string) string { return mermaidText(s, "?") }, "charge, key {key}:charge", "charge, key {key}:charge"},
		{"mermaid unicode", func(s string) string { return mermaidText(s, "?") }, "Straße 支付", "Straße 支付"},
		{"mermaid fallback", func(s string) string { return mermaidText(s, "?") }, "#;%", "?"},
		{"label syntax", func(s string) string { return mermaidLabel(s, "?") }, "A-x B: c, d+e@{f}", "A x B c d e f"},
		{"link spaces and parens", linkTarget, "../my patterns (v2).md", "../my%20patterns%20%28v2%29.md"},
		{"link unicode and angle", linkTarget, "é<x>", "%C3%A9%3Cx%3E"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.fn(tt.in); got != tt.want {
				t.Errorf("(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
