// Package rules is idemkit's knowledge as data: the key sources, the
// providers and their retry windows, the downstream targets and whether
// they deduplicate, the stores, the collision table and its answers per
// transport, the downstream mechanisms, the anti-patterns, the presets and
// the defaults that design, audit and generate all reason with.
//
// The knowledge lives in YAML (catalog/*.yaml, embedded) rather than Go
// literals so that a changed retry window is a reviewable one-line diff next
// to the documentation URL it came from, and so that a team can extend or
// override it with the same format in an .idemkit.yaml at its repo root.
// Every load is validated as a whole, and every error names file, line and
// field: a catalogue that is silently wrong would turn into specs whose TTLs
// are silently too short.
//
// The package is also the one place the vocabularies live (SourceIDs,
// StoreKinds, MechanismIDs, PresetIDs, CollisionAnswers, LocationKinds,
// RepeatAnswers), the one reading of a provider or target named as people
// write it (FindProvider, FindTarget), and
// the one validation of an answer's parts (CheckKeyFormat, CheckHeaderName,
// CheckKeyPart, CheckTTL, CheckDescription, CheckSteps, CheckLocation), so
// that the design form and an answers file accept and refuse the same
// things.
package rules
