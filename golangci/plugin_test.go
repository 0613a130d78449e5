package golangci

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
)

// TestRegistered checks that importing the package registers the plugin
// under the name .golangci.yml uses, as golangci-lint looks it up.
func TestRegistered(t *testing.T) {
	t.Parallel()
	newPlugin, err := register.GetPlugin(Name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlugin(nil)
	if err != nil {
		t.Fatalf("no settings: %v", err)
	}
	if got := p.GetLoadMode(); got != register.LoadModeTypesInfo {
		t.Errorf("GetLoadMode() = %q, want %q", got, register.LoadModeTypesInfo)
	}
	as, err := p.BuildAnalyzers()
	if err != nil {
		t.Fatal(err)
	}
	if err := analysis.Validate(as); err != nil {
		t.Fatal(err)
	}
}

// TestSettings decodes settings as golangci-lint hands them over: the
// YAML under settings, as maps and slices of any.
func TestSettings(t *testing.T) {
	t.Parallel()
	all := []string{"checkthenact", "attemptkey", "releaseonerror", "cacheresponse"}
	tests := []struct {
		name     string
		settings any
		want     []string
		wantErr  string
	}{
		{name: "none", settings: nil, want: all},
		{name: "empty", settings: map[string]any{}, want: all},
		{name: "disable", settings: map[string]any{"disable": []any{"cacheresponse", "attemptkey"}}, want: []string{"checkthenact", "releaseonerror"}},
		{name: "enable", settings: map[string]any{"enable": []any{"releaseonerror", "checkthenact"}}, want: []string{"checkthenact", "releaseonerror"}},
		{name: "enable and disable", settings: map[string]any{"enable": []any{"checkthenact", "attemptkey"}, "disable": []any{"releaseonerror"}}, want: []string{"checkthenact", "attemptkey"}},
		{name: "unknown check", settings: map[string]any{"disable": []any{"checkthenacts"}}, wantErr: `idemkit settings: disable: "checkthenacts" is not a check; the checks are checkthenact, attemptkey, releaseonerror, cacheresponse`},
		{name: "both lists", settings: map[string]any{"enable": []any{"attemptkey"}, "disable": []any{"attemptkey"}}, wantErr: `idemkit settings: enable: "attemptkey" is also disabled; name it in one list`},
		{name: "nothing left", settings: map[string]any{"disable": []any{"checkthenact", "attemptkey", "releaseonerror", "cacheresponse"}}, wantErr: "idemkit settings: every check is disabled; remove idemkit from linters.enable instead"},
		{name: "unknown setting", settings: map[string]any{"checks": []any{"attemptkey"}}, wantErr: `idemkit settings: decoding settings: json: unknown field "checks"`},
		{name: "wrong type", settings: map[string]any{"disable": "attemptkey"}, wantErr: "idemkit settings: decoding settings: json: cannot unmarshal string into Go struct field Settings.disable of type []string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := New(tt.settings)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("New(%v) error = %v, want %q", tt.settings, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%v): %v", tt.settings, err)
			}
			as, err := p.BuildAnalyzers()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range as {
				got = append(got, a.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("New(%v) runs %v, want %v", tt.settings, got, tt.want)
			}
		})
	}
}

// TestSettingErrorType lets a caller tell a bad check name apart with errors.As.
func TestSettingErrorType(t *testing.T) {
	t.Parallel()
	_, err := New(map[string]any{"enable": []any{"nope"}})
	var se *SettingError
	if !errors.As(err, &se) {
		t.Fatalf("New: %v, want a *SettingError", err)
	}
	if se.Setting != "enable" || se.Check != "nope" || !strings.Contains(se.Reason, "not a check") {
		t.Errorf("SettingError = %+v", *se)
	}
}
