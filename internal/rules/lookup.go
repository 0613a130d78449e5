package rules

import (
	"fmt"
	"slices"
	"strings"
)

// The lookups below return a pointer into the catalogue: read it, do not
// change it (Default's catalogue is shared). IDs are matched exactly; they
// are lowercase by validation. A provider or target named by a person
// (an answers file, the form) is found with FindProvider or FindTarget.

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

// Target returns the downstream target with the given ID.
func (c *Catalog) Target(id string) (*Target, bool) {
	return find(c.Targets, func(t *Target) bool { return t.ID == id })
}

// The vocabularies below are the one source of each list of choices: the
// design form's options, the answers file's accepted values and the
// messages that list them all read them here, in catalogue order.

// SourceIDs lists the key sources a design may choose (the rejected one,
// a key made per attempt, is left out).
func (c *Catalog) SourceIDs() []string {
	return pick(c.KeySources, func(k KeySource) (string, bool) { return k.ID, !k.Rejected })
}

// StoreKinds lists the stores a design may choose; a rejected store
// (memcached) is known to Store, to explain the refusal, but not offered.
func (c *Catalog) StoreKinds() []string {
	return pick(c.Stores, func(s Store) (string, bool) { return s.ID, !s.Rejected })
}

// MechanismIDs lists the downstream mechanisms.
func (c *Catalog) MechanismIDs() []string {
	return pick(c.Mechanisms, func(m Mechanism) (string, bool) { return m.ID, true })
}

// PresetIDs lists the presets.
func (c *Catalog) PresetIDs() []string {
	return pick(c.Presets, func(p Preset) (string, bool) { return p.ID, true })
}

// TargetIDs lists the downstream targets.
func (c *Catalog) TargetIDs() []string {
	return pick(c.Targets, func(t Target) (string, bool) { return t.ID, true })
}

// CollisionCases lists the collision table's rows in the order a spec
// presents them: completed, in_progress, mismatch, expired.
func CollisionCases() []string { return slices.Clone(requiredCollisions) }

// CollisionAnswers lists the answers to collision case row that fit key
// source src, the default first. An unknown row or source gives none.
func (c *Catalog) CollisionAnswers(row, src string) []CollisionAnswer {
	r, ok := c.Collision(row)
	if !ok {
		return nil
	}
	var out []CollisionAnswer
	for _, a := range r.Answers {
		if slices.Contains(a.Sources, src) {
			out = append(out, a)
		}
	}
	return out
}

// CollisionAnswer returns the answer with the given ID in collision case
// row, and whether it fits key source src.
func (c *Catalog) CollisionAnswer(row, id, src string) (a *CollisionAnswer, fits bool) {
	r, ok := c.Collision(row)
	if !ok {
		return nil, false
	}
	a, ok = find(r.Answers, func(x *CollisionAnswer) bool { return x.ID == id })
	if !ok {
		return nil, false
	}
	return a, slices.Contains(a.Sources, src)
}

// CheckMechanism reports whether mechanism mech may be used for a call to
// target: it must exist, and a mechanism that relies on the target's own
// deduplication (provider-key, message-id) fits only a target that has
// it. An empty target is a call the catalogue does not know, which any
// mechanism may claim to guard.
func (c *Catalog) CheckMechanism(mech, target string) error {
	m, ok := c.Mechanism(mech)
	if !ok {
		return fmt.Errorf("%w: %q is not a mechanism (known: %s)", ErrUnknownRef, mech, strings.Join(c.MechanismIDs(), ", "))
	}
	if target == "" {
		return nil
	}
	t, ok := c.Target(target)
	if !ok {
		return fmt.Errorf("%w: %q is not a target (known: %s)", ErrUnknownRef, target, strings.Join(c.TargetIDs(), ", "))
	}
	if m.TargetDedup != "" && m.TargetDedup != t.Dedup {
		fix := "guard it with audit-log or guard-row"
		if t.Dedup == DedupNatural {
			fix = "it is idempotent by itself: use natural"
		}
		return fmt.Errorf("%s relies on the target deduplicating, and %s does not (%s); %s", m.ID, t.Name, t.Note, fix)
	}
	return nil
}

func pick[T any](s []T, id func(T) (string, bool)) []string {
	out := []string{}
	for _, e := range s {
		if v, ok := id(e); ok {
			out = append(out, v)
		}
	}
	return out
}

// Window is a retry window as a spec's TTL justification states it: the
// number, what it is, where it is written, and whose it is.
type Window struct {
	Duration     Duration // zero when Unbounded
	Unbounded    bool     // no clock bounds a redelivery (Bound says what does)
	Kind         string   // retry-schedule, manual-redelivery, retention, timeout, policy
	Is           string   // what the number is, in one line
	URL          string   // the page that states it
	Configurable bool     // the user's own setting: ask for it
	Provider     string   // the provider it comes from
	SuggestedTTL Duration // that provider's suggested key TTL
	Unverified   string   // what of it the catalogue could not check
}

// WindowOf returns provider p's retry window.
func WindowOf(p *Provider) Window {
	url := p.Window.URL
	if url == "" {
		url = p.Reference
	}
	return Window{Duration: p.RetryWindow, Unbounded: p.Unbounded, Kind: p.Window.Kind, Is: p.Window.Is, URL: url,
		Configurable: p.Window.Configurable, Provider: p.ID, SuggestedTTL: p.SuggestedTTL, Unverified: p.Unverified}
}

// DefaultWindow is the retry window a design starts from for key source
// src: provider's when one is named, else the longest of the source's
// default providers (an unbounded one counts as the longest). ok is false
// when the source has neither: the design must ask for the window.
func (c *Catalog) DefaultWindow(src, provider string) (w Window, ok bool) {
	if provider != "" {
		p, found := c.Provider(provider)
		if !found {
			return Window{}, false
		}
		return WindowOf(p), true
	}
	k, found := c.KeySource(src)
	if !found {
		return Window{}, false
	}
	for _, id := range k.DefaultProviders {
		p, found := c.Provider(id)
		if !found {
			continue
		}
		cand := WindowOf(p)
		if !ok || cand.Unbounded && !w.Unbounded || !w.Unbounded && cand.Duration > w.Duration {
			w, ok = cand, true
		}
	}
	return w, ok
}

// BodyPointer returns the JSON pointer, from the root of the body, of body
// location l of this key in the i-th event of a batch (i is ignored when
// the delivery is not a batch): "/notificationItems/0/NotificationRequestItem/pspReference"
// for Adyen's first event. ok is false for a location that is not in the
// body.
func (k ProviderKey) BodyPointer(l Location, i int) (ptr string, ok bool) {
	if l.Kind != LocationBody {
		return "", false
	}
	if !k.Batch {
		return l.Name, true
	}
	return fmt.Sprintf("%s/%d%s", k.Items, i, l.Name), true
}
