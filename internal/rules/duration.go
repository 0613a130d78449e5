package rules

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written the way retry windows are talked
// about: "72h", "7d", "5m", "30d". Days are 24 hours; there are no months,
// because providers document their windows in days or hours.
type Duration time.Duration

// ErrForever is returned by ParseDuration for "forever", "never", "infinite"
// and similar: keys are never stored forever (anti-pattern keys-forever).
var ErrForever = errors.New("keys must expire; an idempotency store that keeps keys forever grows without bound")

// ParseDuration parses "7d", "72h", "1h30m", "90s" or "2d12h". A bare number
// is rejected because its unit would be a guess.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	switch s {
	case "":
		return 0, errors.New("empty duration; write it like 24h, 7d or 30m")
	case "forever", "never", "infinite", "infinity", "none", "0", "-1":
		return 0, ErrForever
	}
	var total time.Duration
	rest := s
	for rest != "" {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("invalid duration %q: expected a number before %q; write it like 24h, 7d or 30m", s, rest)
		}
		num := rest[:i]
		rest = rest[i:]
		j := 0
		for j < len(rest) && rest[j] >= 'a' && rest[j] <= 'z' {
			j++
		}
		unit := rest[:j]
		rest = rest[j:]
		var u time.Duration
		switch unit {
		case "d":
			u = 24 * time.Hour
		case "h":
			u = time.Hour
		case "m":
			u = time.Minute
		case "s":
			u = time.Second
		case "ms":
			u = time.Millisecond
		case "":
			return 0, fmt.Errorf("invalid duration %q: %s has no unit; write it like 24h, 7d or 30m", s, num)
		default:
			return 0, fmt.Errorf("invalid duration %q: unknown unit %q; use d, h, m or s", s, unit)
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: %q is not a number", s, num)
		}
		if f > float64(100*365*24*time.Hour)/float64(u) {
			return 0, fmt.Errorf("invalid duration %q: longer than a century; keys must expire", s)
		}
		total += time.Duration(f * float64(u))
	}
	if total <= 0 {
		return 0, fmt.Errorf("invalid duration %q: must be positive", s)
	}
	return Duration(total), nil
}

// MustDuration is ParseDuration for literals known to be valid.
func MustDuration(s string) Duration {
	d, err := ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// String writes d in the largest units that are exact: "7d", "72h" is
// written "3d", "90m" is "1h30m". Zero is "0s".
func (d Duration) String() string {
	if d == 0 {
		return "0s"
	}
	t := time.Duration(d)
	var b strings.Builder
	if t < 0 {
		b.WriteByte('-')
		t = -t
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}} {
		if n := t / u.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, u.name)
			t -= n * u.d
		}
	}
	if t > 0 {
		fmt.Fprintf(&b, "%dns", int64(t))
	}
	return b.String()
}

// Human writes d for prose: "7 days", "72 hours", "5 minutes".
func (d Duration) Human() string {
	t := time.Duration(d)
	plural := func(n int64, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return fmt.Sprintf("%d %ss", n, unit)
	}
	switch {
	case t == 0:
		return "0 seconds"
	case t%(24*time.Hour) == 0:
		return plural(int64(t/(24*time.Hour)), "day")
	case t%time.Hour == 0:
		return plural(int64(t/time.Hour), "hour")
	case t%time.Minute == 0:
		return plural(int64(t/time.Minute), "minute")
	case t%time.Second == 0:
		return plural(int64(t/time.Second), "second")
	}
	return d.String()
}

// Seconds returns d in whole seconds, as Redis EX and Postgres intervals want.
func (d Duration) Seconds() int64 { return int64(time.Duration(d) / time.Second) }

// MarshalYAML writes d as its String form.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads d with ParseDuration; "0s" and empty stay zero so that
// optional durations can be omitted.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := durationNode(n)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*d = v
	return nil
}

// durationNode is UnmarshalYAML without the line prefix, for the catalogue
// loader, whose errors carry the file and line themselves.
func durationNode(n *yaml.Node) (Duration, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, errors.New("expected a duration like 24h or 7d")
	}
	if n.Value == "" || n.Value == "0s" {
		return 0, nil
	}
	return ParseDuration(n.Value)
}
