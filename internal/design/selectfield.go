package design

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
)

// listed is a huh.Select that shows its options from the top. huh scrolls
// a select's list so that the chosen option is its first line whenever the
// value or the height is set, which hides every option above the default:
// at 80x24 the key-source question showed 2 of its 6 answers. listed moves
// the cursor to the top and back down to the chosen option after each of
// those, through the select's own key handling, so the list starts at its
// first option and the choice stays what it was.
type listed[T comparable] struct {
	*huh.Select[T]
	opts  []huh.Option[T]
	value *T
}

// newListed binds value and opts to s (the value first, as huh wants).
// The list is rewound once the form gives the select its key map, which
// rewinding needs, and again whenever it sets the height.
func newListed[T comparable](s *huh.Select[T], value *T, opts []huh.Option[T]) *listed[T] {
	return &listed[T]{Select: s.Value(value).Options(opts...), opts: opts, value: value}
}

// rewind shows the list from its first option, the choice unchanged.
func (l *listed[T]) rewind() {
	i := slices.IndexFunc(l.opts, func(o huh.Option[T]) bool { return o.Value == *l.value })
	if i < 0 {
		return
	}
	l.Select.Update(tea.KeyMsg{Type: tea.KeyHome})
	for range i {
		l.Select.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
}

// WithKeyMap sets the key map and rewinds the list.
func (l *listed[T]) WithKeyMap(k *huh.KeyMap) huh.Field {
	l.Select.WithKeyMap(k)
	l.rewind()
	return l
}

// WithHeight sets the height, which scrolls the list again, and rewinds it.
func (l *listed[T]) WithHeight(h int) huh.Field {
	l.Select.WithHeight(h)
	l.rewind()
	return l
}

// WithAccessible returns the field itself, so that accessible mode runs
// the select it wraps.
func (l *listed[T]) WithAccessible(accessible bool) huh.Field {
	l.Select.WithAccessible(accessible)
	return l
}
