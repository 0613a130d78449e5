package match_test

import (
	"slices"
	"testing"

	"github.com/idemkit/idemkit/internal/audit/internal/match"
)

func TestInProgress(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{"in_progress", true},
		{"IN_PROGRESS", true},
		{"processing", true},
		{"pending", true},
		{"started", true},
		{"in-flight", true},
		{"StatusInFlight", true},
		{"done", false},
		{"completed", false},
		{"failed", false},
		{"", false},
	} {
		if got := match.InProgress(tt.value); got != tt.want {
			t.Errorf("InProgress(%q) = %v, want %v", tt.value, got, tt.want)
		}
	}
}

func TestLiterals(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sql  string
		want []string
	}{
		{`INSERT INTO idempotency_keys (key, status) VALUES ($1, 'in_progress')`, []string{"in_progress"}},
		{`UPDATE jobs SET note = 'it''s done', state = 'done' WHERE id = $1`, []string{"it's done", "done"}},
		{`SELECT 1 FROM t WHERE "status" = $1 -- 'comment'`, nil},
	} {
		if got := match.Literals(tt.sql); !slices.Equal(got, tt.want) {
			t.Errorf("Literals(%q) = %q, want %q", tt.sql, got, tt.want)
		}
	}
}
