// Package templates holds what idemkit writes for its users, embedded in the
// binary so that a release renders the same bytes everywhere: the markdown
// template of a spec document (knowledge/projects/idempotency-<slug>.md) and,
// as the generator grows, the runtime library and handler skeletons it writes
// into a user's module. Rendering is pure — values in, bytes out — and only
// the command layer touches the disk.
package templates
