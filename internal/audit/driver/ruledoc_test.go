package driver

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		analyzer *analysis.Analyzer
		title    string
		markdown []string // in order
	}{
		{
			name:     "from the catalogue",
			analyzer: &analysis.Analyzer{Name: "checkthenact", Doc: "not this"},
			title:    "A record checked, then written, as two steps",
			markdown: []string{"# checkthenact: A record checked, then written", "Two concurrent retries",
				"(`check-then-act`)", "## Reported", "```go\nvar seen bool", "## Instead", "ON CONFLICT (event_id) DO NOTHING",
				"`//idemkit:ignore checkthenact REASON`"},
		},
		{
			name:     "from the analyzer's Doc",
			analyzer: drivertest.BadCall,
			title:    "calls to Bad",
			markdown: []string{"# badcall\n\ncalls to Bad\n\nBad is never right; call Good.", "`//idemkit:ignore badcall REASON`"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := Describe(tc.analyzer)
			if d.Name != tc.analyzer.Name || d.Title != tc.title || d.Summary == "" || strings.Contains(d.Summary, "not this") {
				t.Errorf("doc = %+v", d)
			}
			md := string(d.Markdown)
			for _, w := range tc.markdown {
				i := strings.Index(md, w)
				if i < 0 {
					t.Fatalf("markdown lacks %q (or has it out of order):\n%s", w, d.Markdown)
				}
				md = md[i+len(w):]
			}
		})
	}
}
