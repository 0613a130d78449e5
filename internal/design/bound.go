package design

import (
	"fmt"
	"strings"

	"github.com/idemkit/idemkit/internal/rules"
)

// reaching lists the catalogue providers that repeat the operation: the
// key's own provider (user-driven retries for a client key that names
// none) and every provider in key.retried_by.
func reaching(cat *rules.Catalog, k KeyAnswers) []*rules.Provider {
	own := strings.ToLower(strings.TrimSpace(k.Provider))
	if own == "" && k.Source == "client" {
		own = "ui"
	}
	var out []*rules.Provider
	for _, id := range append([]string{own}, k.RetriedBy...) {
		if p, err := cat.FindProvider(id); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// retryBound is what a TTL must cover: the longest retry window among the
// providers that repeat the operation, the window the answers state
// (key.window), and, for a cron job, one slot. Decide rejects a TTL below
// it and the form refuses one inline, from this one computation.
type retryBound struct {
	window    rules.Duration  // zero when nothing known bounds the retries
	from      *rules.Provider // the provider whose window it is, if any
	source    string          // the spec's ttl.window_source: a provider ID, "answers", "schedule" or "default"
	name      string          // who repeats for that long, for messages
	note      string          // where the window and the suggestion come from
	suggested rules.Duration
}

func boundOf(cat *rules.Catalog, k KeyAnswers) retryBound {
	b := retryBound{suggested: cat.Defaults.TTL, source: "default"}
	b.note = fmt.Sprintf("Nothing known bounds this operation's retries; the catalogue's default is %s.", b.suggested)
	for _, p := range reaching(cat, k) {
		window := p.RetryWindow
		if p.Unbounded && window == 0 {
			// No clock bounds a redelivery: the catalogue's suggestion is
			// the policy, and the TTL may not go below it either.
			window = p.SuggestedTTL
		}
		if window <= b.window {
			continue
		}
		b = retryBound{window: window, from: p, source: p.ID, name: p.Name, suggested: max(cat.Defaults.TTL, p.SuggestedTTL)}
		if p.SuggestedTTL > 0 {
			b.suggested = p.SuggestedTTL
		}
		b.note = fmt.Sprintf("%s can repeat a request for up to %s; suggested TTL %s. %s", p.Name, window, b.suggested, p.Bound)
		if !p.Retries {
			// GitHub: nothing repeats by itself, a person redelivers.
			b.note = fmt.Sprintf("%s: no automatic retries, but a delivery can be resent for up to %s; suggested TTL %s. %s", p.Name, window, b.suggested, p.Bound)
		}
		if p.Unbounded {
			b.note = fmt.Sprintf("No clock bounds a redelivery from %s; the policy is %s unless key.window says otherwise. %s", p.Name, window, p.Bound)
		}
		if c := unverified(p.Name, p.Unverified); c != "" {
			// The form shows the number before the spec does: the caveat
			// goes with it.
			b.note += " " + c
		}
	}
	if w, err := rules.ParseDuration(k.Window); err == nil && (w > b.window || b.from != nil && b.from.Unbounded) {
		b.window, b.from, b.source, b.name = w, nil, "answers", "this operation (key.window)"
		b.suggested = max(b.suggested, w)
		b.note = fmt.Sprintf("Retries can reach this %s key for up to %s, the window given for it; suggested TTL %s.", k.Source, w, b.suggested)
	}
	if slot, err := rules.ParseDuration(k.Schedule); err == nil && k.Source == "cron" {
		if slot > b.window {
			b.window, b.from, b.source, b.name = slot, nil, "schedule", "the schedule"
		}
		b.suggested = max(b.suggested, 2*slot)
		b.note = fmt.Sprintf("Two daemons or a catch-up run can fire the same %s slot any time within it, so keys are kept for two slots at least; suggested TTL %s.", slot, b.suggested)
	}
	return b
}
