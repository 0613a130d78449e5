package rules

import (
	"sync"

	"gopkg.in/yaml.v3"
)

// defaultChecks decodes only catalog/checks.yaml. The analyzers build their
// Doc from it when their package initialises, and go vet starts the tool
// once for every package it analyses: loading and validating the whole
// catalogue there would cost every one of those processes milliseconds.
// TestDefaultChecks keeps it equal to Default().Checks.
var defaultChecks = sync.OnceValue(func() []Check {
	data, err := embedded.ReadFile("catalog/checks.yaml")
	if err != nil {
		panic("rules: the embedded catalogue has no checks.yaml: " + err.Error())
	}
	var f struct {
		Checks []Check `yaml:"checks"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		panic("rules: the embedded checks.yaml is broken: " + err.Error())
	}
	return f.Checks
})

// DefaultCheck returns the embedded catalogue's entry for the named audit
// check, without loading the rest of the catalogue.
func DefaultCheck(name string) (*Check, bool) {
	return find(defaultChecks(), func(c *Check) bool { return c.ID == name })
}

// DefaultChecks returns the embedded catalogue's audit checks, without
// loading the rest of the catalogue. The slice is shared: do not change it.
func DefaultChecks() []Check { return defaultChecks() }
