package rules

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// People name a provider or a target the way they write it ("Checkout.com",
// "GoCardless", "Stripe webhooks", "stripe-api"), not by its catalogue ID.
// FindProvider and FindTarget take such a name and return the one entry it
// means, or a *NameError: never a guess between two entries.
//
// A name is compared folded: lowercase, with only its letters and digits
// (so case, punctuation and spacing do not matter). It is tried against
// each entry in steps, and the first step that finds anything decides:
//
//  1. the ID itself (stripe-api);
//  2. the folded ID or the folded name (checkout_com, Stripe webhooks);
//  3. both with their kind words dropped, and a name with its words in
//     parentheses dropped (stripe for stripe-api, Stripe API for Stripe
//     webhooks, GoCardless for "GoCardless API (create endpoints)");
//  4. every word of the name, kind words dropped, among the words of the
//     entry's ID or name (checkout for Checkout.com webhooks, Twilio
//     SendGrid for "Twilio SendGrid Mail Send").
//
// Two entries found by one step make the name ambiguous: a *NameError
// lists them, and the ID of each finds it.

// kindWords say what kind of entry a name is rather than which one: they
// are dropped from names before steps 3 and 4.
var kindWords = []string{
	"api", "apis", "rest", "webhook", "webhooks", "event", "events", "notification", "notifications",
	"queue", "queues", "consumer", "consumers", "subscription", "subscriptions",
}

// NameError is a provider or target name that names no catalogue entry,
// or more than one.
type NameError struct {
	What string // "provider" or "target"
	Name string // the name as given
	// Matches lists the entries an ambiguous name could mean, as
	// "id (name)"; empty when the name matches none.
	Matches []string
	// Near lists the IDs closest to a name that matches none, nearest
	// first; empty when none is close.
	Near []string
}

func (e *NameError) Error() string {
	if len(e.Matches) > 0 {
		return fmt.Sprintf("%s %q could be any of %s; write the ID of the one you mean", e.What, e.Name, strings.Join(e.Matches, ", "))
	}
	msg := fmt.Sprintf("unknown %s %q", e.What, e.Name)
	if len(e.Near) > 0 {
		msg += " (did you mean " + orList(e.Near) + "?)"
	}
	return msg
}

// Ambiguous reports whether the name matches more than one entry.
func (e *NameError) Ambiguous() bool { return len(e.Matches) > 0 }

// Unwrap makes a name that matches nothing an ErrUnknownRef.
func (e *NameError) Unwrap() error {
	if e.Ambiguous() {
		return nil
	}
	return ErrUnknownRef
}

func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// FindProvider returns the provider name means (see the comment above
// kindWords for how names are matched). When a step finds several
// providers and exactly one of them is of one of kinds, that one is
// meant; when several are, an ambiguous name lists only those.
func (c *Catalog) FindProvider(name string, kinds ...string) (*Provider, error) {
	i, err := findName("provider", name, len(c.Providers), func(i int) named {
		p := &c.Providers[i]
		return named{id: p.ID, name: p.Name, preferred: len(kinds) > 0 && slices.Contains(kinds, p.Kind)}
	})
	if err != nil {
		return nil, err
	}
	return &c.Providers[i], nil
}

// FindTarget returns the downstream target name means (see the comment
// above kindWords for how names are matched).
func (c *Catalog) FindTarget(name string) (*Target, error) {
	i, err := findName("target", name, len(c.Targets), func(i int) named {
		return named{id: c.Targets[i].ID, name: c.Targets[i].Name}
	})
	if err != nil {
		return nil, err
	}
	return &c.Targets[i], nil
}

type named struct {
	id, name  string
	preferred bool
}

// findName returns the index of the one entry name means, among n entries.
func findName(what, name string, n int, entry func(int) named) (int, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	if want == "" {
		return -1, &NameError{What: what, Name: name}
	}
	entries := make([]named, n)
	for i := range entries {
		entries[i] = entry(i)
	}
	q := fold(want)
	qcore := fold(strings.Join(core(words(want)), " "))
	qwords := core(words(want))
	steps := []func(e named) bool{
		func(e named) bool { return e.id == want },
		func(e named) bool { return q != "" && (fold(e.id) == q || fold(e.name) == q) },
		func(e named) bool {
			return qcore != "" && (coreOf(e.id) == qcore || coreOf(e.name) == qcore || coreOf(bare(e.name)) == qcore)
		},
		func(e named) bool {
			if len(qwords) == 0 {
				return false
			}
			have := append(words(e.id), words(bare(e.name))...)
			for _, w := range qwords {
				if !slices.Contains(have, w) {
					return false
				}
			}
			return true
		},
	}
	for _, match := range steps {
		var found []int
		for i, e := range entries {
			if match(e) {
				found = append(found, i)
			}
		}
		if len(found) > 1 {
			var preferred []int
			for _, i := range found {
				if entries[i].preferred {
					preferred = append(preferred, i)
				}
			}
			if len(preferred) > 0 {
				// One of the kinds asked for settles it; several are
				// the ones to choose from.
				found = preferred
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		}
		e := &NameError{What: what, Name: name}
		for _, i := range found {
			e.Matches = append(e.Matches, entries[i].id+" ("+entries[i].name+")")
		}
		return -1, e
	}
	return -1, &NameError{What: what, Name: name, Near: near(q, entries)}
}

// near lists the IDs within a small edit distance of folded name q, or
// sharing a prefix of at least four letters with it, nearest first; at
// most three.
func near(q string, entries []named) []string {
	if q == "" {
		return nil
	}
	type cand struct {
		id   string
		dist int
	}
	var cands []cand
	for _, e := range entries {
		best := -1
		for _, s := range []string{fold(e.id), coreOf(e.id), coreOf(bare(e.name))} {
			if s == "" {
				continue
			}
			d := Distance(q, s)
			if d > max(1, min(len(q), len(s))/3) && commonPrefix(q, s) < 4 {
				continue
			}
			if best < 0 || d < best {
				best = d
			}
		}
		if best >= 0 {
			cands = append(cands, cand{e.id, best})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cands[:min(len(cands), 3)] {
		out = append(out, c.id)
	}
	return out
}

// fold keeps only the letters and digits of s, lowercased.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// words splits s, lowercased, at everything that is not a letter or a digit.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// NameSays tells whether a name calls itself a webhook sender ("Stripe
// webhooks": "provider") or an API ("GoCardless API": "target"), or
// neither (""), for a caller that takes either kind and finds both.
func NameSays(name string) string {
	ws := words(name)
	switch {
	case slices.Contains(ws, "webhook") || slices.Contains(ws, "webhooks"):
		return "provider"
	case slices.Contains(ws, "api"):
		return "target"
	}
	return ""
}

// core drops the kind words from ws.
func core(ws []string) []string {
	return slices.DeleteFunc(slices.Clone(ws), func(w string) bool { return slices.Contains(kindWords, w) })
}

// coreOf is s folded with its kind words dropped.
func coreOf(s string) string { return strings.Join(core(words(s)), "") }

// bare drops the words in parentheses from a name: "Stripe API (POST
// requests)" is the Stripe API.
func bare(name string) string {
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Distance is the Levenshtein distance between a and b, in bytes (folded
// names are mostly ASCII; a rune split in two only counts twice).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
