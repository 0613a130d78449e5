package design

import (
	"fmt"
	"io"
	"slices"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
	"github.com/charmbracelet/lipgloss"
)

// maxListed is the most options a list shows at once on a terminal; a
// longer one (30 webhook senders, 23 volatile fields) scrolls, so that the
// question's teaching note and the questions around it keep their place on
// a 24-line screen.
const maxListed = 8

// What a list puts before an option's label: the field's border and the
// cursor, and in a multi-select its check mark.
const (
	selectMargin      = 4
	multiSelectMargin = 6
)

// listed is a huh.Select that shows its options from the top. huh scrolls
// a select's list so that the chosen option is its first line whenever the
// value or the height is set, which hides every option above the default:
// at 80x24 the key-source question showed 2 of its 6 answers. listed moves
// the cursor to the top and back down to the chosen option after each of
// those, through the select's own key handling, so the list starts at its
// first option and the choice stays what it was. On a terminal its labels
// are cut to one line each (huh wraps a long one without indenting it,
// sometimes mid-word), and a list longer than maxListed scrolls.
type listed[T comparable] struct {
	*huh.Select[T]
	opts  []huh.Option[T]
	value *T
	fit   int // the height the list chose for itself, 0 for all its options
}

// newListed binds value and opts to s (the value first, as huh wants).
// The list is rewound once the form gives the select its key map, which
// rewinding needs, and again whenever it sets the width or the height.
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

// WithWidth cuts the labels to the width and gives a long list its height.
func (l *listed[T]) WithWidth(w int) huh.Field {
	l.Select.WithWidth(w)
	l.Select.Options(fitLabels(l.opts, w-selectMargin)...)
	l.Select.Height(0)
	if len(l.opts) > maxListed {
		// With no height set the field is its title, its description and one
		// line per option.
		l.fit = lipgloss.Height(l.Select.View()) - len(l.opts) + maxListed
		l.Select.Height(l.fit)
	}
	l.rewind()
	return l
}

// WithHeight sets the height, which scrolls the list again, and rewinds it.
func (l *listed[T]) WithHeight(h int) huh.Field {
	if l.fit > 0 {
		h = min(h, l.fit)
	}
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

// multiListed is listed for a huh.MultiSelect: it starts at the top of its
// list (huh scrolls it to the first chosen option), cuts its labels to one
// line, and scrolls when it is longer than maxListed.
type multiListed[T comparable] struct {
	*huh.MultiSelect[T]
	opts []huh.Option[T]
	fit  int
}

func newMultiListed[T comparable](m *huh.MultiSelect[T], opts []huh.Option[T]) *multiListed[T] {
	return &multiListed[T]{MultiSelect: m.Options(opts...), opts: opts}
}

func (l *multiListed[T]) rewind() { l.MultiSelect.Update(tea.KeyMsg{Type: tea.KeyHome}) }

// WithKeyMap sets the key map and rewinds the list.
func (l *multiListed[T]) WithKeyMap(k *huh.KeyMap) huh.Field {
	l.MultiSelect.WithKeyMap(k)
	l.rewind()
	return l
}

// WithWidth cuts the labels to the width and gives a long list its height.
// Options keeps the choices: huh marks them again from the bound value.
func (l *multiListed[T]) WithWidth(w int) huh.Field {
	l.MultiSelect.WithWidth(w)
	l.MultiSelect.Options(fitLabels(l.opts, w-multiSelectMargin)...)
	l.MultiSelect.Height(0)
	if len(l.opts) > maxListed {
		l.fit = lipgloss.Height(l.MultiSelect.View()) - len(l.opts) + maxListed
		l.MultiSelect.Height(l.fit)
	}
	l.rewind()
	return l
}

// WithHeight sets the height, no taller than the list chose, and rewinds.
func (l *multiListed[T]) WithHeight(h int) huh.Field {
	if l.fit > 0 {
		h = min(h, l.fit)
	}
	l.MultiSelect.WithHeight(h)
	l.rewind()
	return l
}

// WithAccessible returns the field itself; accessible mode prints the
// labels whole, since it never gets a width.
func (l *multiListed[T]) WithAccessible(accessible bool) huh.Field {
	l.MultiSelect.WithAccessible(accessible)
	return l
}

// fitLabels returns opts with each label cut to room columns, ending in
// "…" where it was cut.
func fitLabels[T comparable](opts []huh.Option[T], room int) []huh.Option[T] {
	out := make([]huh.Option[T], len(opts))
	for i, o := range opts {
		out[i] = huh.NewOption(cut(o.Key, room), o.Value)
	}
	return out
}

// cut shortens s to at most n runes, the last of them "…".
func cut(s string, n int) string {
	r := []rune(s)
	if n <= 0 || len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// refreshed is a huh.Input whose default follows the answers given above
// it in the same form: refresh runs each time the input is reached, in
// either mode, just before it shows or asks its value (the key's format
// after its location changed, say), and may set its title and value again.
type refreshed struct {
	*huh.Input
	refresh func(*huh.Input)
}

// Focus refreshes the input, then focuses it.
func (r *refreshed) Focus() tea.Cmd {
	r.refresh(r.Input)
	return r.Input.Focus()
}

// WithAccessible returns the field itself, so that accessible mode runs
// RunAccessible below.
func (r *refreshed) WithAccessible(accessible bool) huh.Field {
	r.Input.WithAccessible(accessible)
	return r
}

// RunAccessible refreshes the input, then asks it.
func (r *refreshed) RunAccessible(w io.Writer, in io.Reader) error {
	r.refresh(r.Input)
	return r.Input.RunAccessible(w, in)
}

// Update updates the select and keeps the wrapper in the group: huh puts
// whatever Update returns in the field's place.
func (l *listed[T]) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := l.Select.Update(msg)
	return l, cmd
}

// Update updates the multi-select and keeps the wrapper in the group.
func (l *multiListed[T]) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := l.MultiSelect.Update(msg)
	return l, cmd
}

// Update updates the input and keeps the wrapper in the group, so that it
// is still there to refresh the input when the person reaches it.
func (r *refreshed) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := r.Input.Update(msg)
	return r, cmd
}

// prefaced is a field with what comes before it: a question's teaching
// note, and the field's description (see explain).
//
// The note is part of the field, the first of its question. huh scrolls a
// group taller than the screen to the field being answered, and a note of
// its own above that field scrolled away with everything else above it;
// joined to the field, it is on screen whenever the field is.
//
// The description is the field's own, which the terminal shows under its
// title; accessible mode prints a field's title alone, so the wrapper prints
// the description first. Without it a person with a screen reader hears
// "Lease [30s]" and not what a lease is.
//
// Its With methods set the field and keep it, as huh's Group does: a
// wrapper that does not override one of them (listed has no WithTheme)
// returns the field it wraps, and keeping that would drop the wrapper.
type prefaced struct {
	huh.Field
	note *teaching     // nil without one
	text func() string // the description; nil without one
}

// preface joins note to f, or to the field f wraps when f is explained.
func preface(note *teaching, f huh.Field) *prefaced {
	if p, ok := f.(*prefaced); ok && p.note == nil {
		p.note = note
		return p
	}
	return &prefaced{Field: f, note: note}
}

// describe sets the field's description to the current text.
func (p *prefaced) describe() {
	if p.text == nil {
		return
	}
	text := p.text()
	switch f := p.Field.(type) {
	case *huh.Input:
		f.Description(text)
	case *huh.Confirm:
		f.Description(text)
	case *refreshed:
		f.Input.Description(text)
	case *listed[string]:
		f.Select.Description(text)
	case *multiListed[string]:
		f.MultiSelect.Description(text)
	default:
		panic(fmt.Sprintf("design: explain has no description for a %T", f))
	}
}

// Focus describes the field again, with the answers given so far, then
// focuses it.
func (p *prefaced) Focus() tea.Cmd {
	p.describe()
	return p.Field.Focus()
}

// View shows the note above the field.
func (p *prefaced) View() string {
	if p.note == nil {
		return p.Field.View()
	}
	return p.note.View() + "\n" + p.Field.View()
}

// Update updates the field and keeps the wrapper in the group.
func (p *prefaced) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := p.Field.Update(msg)
	if f, ok := m.(huh.Field); ok {
		p.Field = f
	}
	return p, cmd
}

// WithTheme themes the note and the field.
func (p *prefaced) WithTheme(t *huh.Theme) huh.Field {
	if p.note != nil {
		p.note.WithTheme(t)
	}
	p.Field.WithTheme(t)
	return p
}

// WithKeyMap sets the field's key map.
func (p *prefaced) WithKeyMap(k *huh.KeyMap) huh.Field {
	if p.note != nil {
		p.note.WithKeyMap(k)
	}
	p.Field.WithKeyMap(k)
	return p
}

// WithWidth sets the width of both.
func (p *prefaced) WithWidth(w int) huh.Field {
	if p.note != nil {
		p.note.WithWidth(w)
	}
	p.Field.WithWidth(w)
	return p
}

// WithHeight gives the field what the note leaves of the height.
func (p *prefaced) WithHeight(h int) huh.Field {
	if p.note != nil {
		h = max(1, h-lipgloss.Height(p.note.View())-1)
	}
	p.Field.WithHeight(h)
	return p
}

// WithPosition passes the position on to the field.
func (p *prefaced) WithPosition(pos huh.FieldPosition) huh.Field {
	p.Field.WithPosition(pos)
	return p
}

// WithAccessible returns the wrapper, so that accessible mode prints the note
// and the description.
func (p *prefaced) WithAccessible(accessible bool) huh.Field {
	p.Field.WithAccessible(accessible)
	return p
}

// RunAccessible prints the note as written and a blank line, then the
// description, then asks the field.
func (p *prefaced) RunAccessible(w io.Writer, r io.Reader) error {
	if p.note != nil {
		if err := p.note.RunAccessible(w, r); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	if p.text != nil {
		if text := p.text(); text != "" {
			if _, err := fmt.Fprintln(w, text); err != nil {
				return err
			}
		}
	}
	return p.Field.RunAccessible(w, r)
}
