// Package golangci is idemkit's golangci-lint v2 module plugin: the audit
// suite (checkthenact, attemptkey, releaseonerror, cacheresponse) as one
// custom linter named "idemkit".
//
// golangci-lint's module plugins are compiled in: `golangci-lint custom`
// builds a golangci-lint whose main imports this package for its init,
// which registers the plugin. A team names the module in .custom-gcl.yml
// and turns the linter on in .golangci.yml:
//
//	linters:
//	  enable:
//	    - idemkit
//	  settings:
//	    custom:
//	      idemkit:
//	        type: module
//	        description: idempotency-key bugs (idemkit)
//	        settings:
//	          disable: [cacheresponse]
//
// docs/golangci-lint.md in the repository walks through both files.
//
// Like go vet, golangci-lint gives each package its own pass and carries
// the checks' effect summaries to the packages above as facts, so the
// findings are those of go vet -vettool=idemkit; `idemkit audit` can find
// more, since it also resolves interface calls over the whole module.
package golangci

import (
	"fmt"
	"slices"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit"
)

// Name is the plugin's name: the key under linters.settings.custom in
// .golangci.yml, and the linter name golangci-lint prints after a finding.
const Name = "idemkit"

func init() {
	register.Plugin(Name, New)
}

// Settings are what the plugin reads from linters.settings.custom.idemkit.settings.
// With neither list every check runs.
type Settings struct {
	// Enable, when not empty, runs only the checks it names.
	Enable []string `json:"enable"`
	// Disable names checks not to run.
	Disable []string `json:"disable"`
}

// SettingError is a check named in the settings that cannot be honoured:
// one that does not exist, one both enabled and disabled, or settings
// that leave no check to run.
type SettingError struct {
	Setting string // "enable" or "disable"; empty when no check is left
	Check   string
	Reason  string
}

func (e *SettingError) Error() string {
	if e.Setting == "" {
		return fmt.Sprintf("%s settings: %s", Name, e.Reason)
	}
	return fmt.Sprintf("%s settings: %s: %q %s", Name, e.Setting, e.Check, e.Reason)
}

// Plugin is the registered linter: the checks the settings leave on.
type Plugin struct {
	analyzers []*analysis.Analyzer
}

// New decodes the plugin's settings (nil when .golangci.yml has none) and
// returns the plugin; golangci-lint calls it through the registry.
func New(settings any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](settings)
	if err != nil {
		return nil, fmt.Errorf("%s settings: %w", Name, err)
	}
	as, err := s.analyzers()
	if err != nil {
		return nil, err
	}
	return &Plugin{analyzers: as}, nil
}

// BuildAnalyzers returns the checks to run, in the suite's order.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return p.analyzers, nil
}

// GetLoadMode asks for type information: every check follows types and
// reads facts from the packages below.
func (p *Plugin) GetLoadMode() string {
	return register.LoadModeTypesInfo
}

// analyzers returns the checks of the suite that s leaves on.
func (s Settings) analyzers() ([]*analysis.Analyzer, error) {
	known := make([]string, len(audit.Analyzers))
	for i, a := range audit.Analyzers {
		known[i] = a.Name
	}
	for _, list := range []struct {
		setting string
		names   []string
	}{{"enable", s.Enable}, {"disable", s.Disable}} {
		for _, n := range list.names {
			if !slices.Contains(known, n) {
				return nil, &SettingError{Setting: list.setting, Check: n, Reason: "is not a check; the checks are " + strings.Join(known, ", ")}
			}
		}
	}
	for _, n := range s.Enable {
		if slices.Contains(s.Disable, n) {
			return nil, &SettingError{Setting: "enable", Check: n, Reason: "is also disabled; name it in one list"}
		}
	}
	var out []*analysis.Analyzer
	for _, a := range audit.Analyzers {
		if (len(s.Enable) == 0 || slices.Contains(s.Enable, a.Name)) && !slices.Contains(s.Disable, a.Name) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, &SettingError{Reason: "every check is disabled; remove " + Name + " from linters.enable instead"}
	}
	return out, nil
}
