package design

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/rules"
)

// ApplyPreset fills a with the catalogue preset id (payment, webhook, queue,
// workflow, cron). Answers already given (the operation name, a description)
// are kept; the preset's answers replace the rest.
func ApplyPreset(cat *rules.Catalog, id string, a *Answers) error {
	p := findPreset(cat, id)
	if p == nil {
		return fmt.Errorf("unknown preset %q; known presets: %s", id, strings.Join(PresetIDs(cat), ", "))
	}
	raw, err := yaml.Marshal(p.Answers)
	if err != nil {
		return fmt.Errorf("preset %s: %w", id, err)
	}
	// Unknown fields are errors, so a misspelt answer in a team's own
	// preset (.idemkit.yaml) is caught instead of silently defaulted.
	var next Answers
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&next); err != nil {
		return fmt.Errorf("preset %s: %w", id, err)
	}
	if a.Operation != "" {
		next.Operation = a.Operation
	}
	if a.Description != "" {
		next.Description = a.Description
	}
	next.Preset = id
	*a = next
	return nil
}

// PresetIDs lists the catalogue's preset IDs in catalogue order.
func PresetIDs(cat *rules.Catalog) []string {
	ids := make([]string, 0, len(cat.Presets))
	for _, p := range cat.Presets {
		ids = append(ids, p.ID)
	}
	return ids
}

func findPreset(cat *rules.Catalog, id string) *rules.Preset {
	for i := range cat.Presets {
		if cat.Presets[i].ID == id {
			return &cat.Presets[i]
		}
	}
	return nil
}
