// Package knowledge carries the knowledge graph's shared pages into the
// binary: idemkit design writes the patterns page into a user's repository
// beside the specs that link it, so that no spec links a page that is not
// there.
package knowledge

import _ "embed"

// Patterns is knowledge/patterns/idempotency-patterns.md, the page every
// spec links (spec.PatternsLink, relative to knowledge/projects).
//
//go:embed patterns/idempotency-patterns.md
var Patterns []byte
