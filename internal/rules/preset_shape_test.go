package rules_test

import (
	"bytes"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/rules"
)

// TestPresetAnswersShape decodes every preset's answers into design.Answers
// with unknown fields rejected: rules keeps answers raw to stay free of the
// design package, so this is where a misspelt answer key, or a drift of
// design.Answers away from the presets, shows up.
func TestPresetAnswersShape(t *testing.T) {
	t.Parallel()
	for _, p := range rules.Default().Presets {
		raw, err := yaml.Marshal(p.Answers)
		if err != nil {
			t.Fatalf("%s: %v", p.ID, err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		var a design.Answers
		if err := dec.Decode(&a); err != nil {
			t.Errorf("preset %s does not decode into design.Answers: %v", p.ID, err)
			continue
		}
		if a.Key.Source == "" || (len(a.Downstream) == 0) {
			t.Errorf("preset %s decoded without a key source or downstream steps: %+v", p.ID, a)
		}
	}
}
