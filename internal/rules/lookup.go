package rules

import (
	"slices"
)

// The lookups below return a pointer into the catalogue: read it, do not
// change it (Default's catalogue is shared). IDs are matched exactly; they
// are lowercase by validation.

// Provider returns the provider with the given ID.
func (c *Catalog) Provider(id string) (*Provider, bool) {
	return find(c.Providers, func(p *Provider) bool { return p.ID == id })
}

// KeySource returns the key source with the given ID.
func (c *Catalog) KeySource(id string) (*KeySource, bool) {
	return find(c.KeySources, func(k *KeySource) bool { return k.ID == id })
}

// Store returns the store with the given ID.
func (c *Catalog) Store(id string) (*Store, bool) {
	return find(c.Stores, func(s *Store) bool { return s.ID == id })
}

// Collision returns the collision-table row with the given ID.
func (c *Catalog) Collision(id string) (*Collision, bool) {
	return find(c.Collisions, func(r *Collision) bool { return r.ID == id })
}

// Mechanism returns the downstream mechanism with the given ID.
func (c *Catalog) Mechanism(id string) (*Mechanism, bool) {
	return find(c.Mechanisms, func(m *Mechanism) bool { return m.ID == id })
}

// Check returns the audit check (analyzer) with the given name.
func (c *Catalog) Check(id string) (*Check, bool) {
	return find(c.Checks, func(k *Check) bool { return k.ID == id })
}

// AntiPattern returns the anti-pattern with the given ID.
func (c *Catalog) AntiPattern(id string) (*AntiPattern, bool) {
	return find(c.AntiPatterns, func(a *AntiPattern) bool { return a.ID == id })
}

// VolatileField returns the volatile field with the given name, whose
// reason design copies into a spec's hash exclusions.
func (c *Catalog) VolatileField(name string) (*VolatileField, bool) {
	return find(c.VolatileFields, func(f *VolatileField) bool { return f.Name == name })
}

// ProviderIDs lists the IDs of the providers of one kind (webhook, queue,
// internal, ui), or of all providers when kind is empty, sorted, for menus
// and for "known providers: ..." in error messages.
func (c *Catalog) ProviderIDs(kind string) []string {
	var ids []string
	for _, p := range c.Providers {
		if kind == "" || p.Kind == kind {
			ids = append(ids, p.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func find[T any](s []T, match func(*T) bool) (*T, bool) {
	for i := range s {
		if match(&s[i]) {
			return &s[i], true
		}
	}
	return nil, false
}
