package rules

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestParseDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in, want, err string
	}{
		{"7d", "7d", ""},
		{"72h", "3d", ""},
		{"90m", "1h30m", ""},
		{"2d12h", "2d12h", ""},
		{" 15S ", "15s", ""},
		{"3 days", "", `invalid duration "3 days": 3 has no unit`},
		{"24", "", `invalid duration "24": 24 has no unit`},
		{"1w", "", `unknown unit "w"`},
		{"", "", "empty duration"},
		{"forever", "", ErrForever.Error()},
		{"200y", "", `unknown unit "y"`},
		{"40000d", "", "longer than a century"},
	} {
		d, err := ParseDuration(tt.in)
		switch {
		case tt.err == "" && (err != nil || d.String() != tt.want):
			t.Errorf("ParseDuration(%q) = %s, %v; want %s", tt.in, d, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseDuration(%q) error = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// TestDurationYAML keeps UnmarshalYAML's line prefix, which the spec
// package's errors rely on, while the catalogue loader uses durationNode
// and adds file and line itself.
func TestDurationYAML(t *testing.T) {
	t.Parallel()
	var v struct {
		TTL Duration `yaml:"ttl"`
	}
	if err := yaml.Unmarshal([]byte("ttl: 2d\n"), &v); err != nil || v.TTL != MustDuration("48h") {
		t.Errorf("ttl: 2d = %s, %v", v.TTL, err)
	}
	err := yaml.Unmarshal([]byte("\nttl: forever\n"), &v)
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: keys must expire") || !errors.Is(err, ErrForever) {
		t.Errorf("ttl: forever = %v", err)
	}
	for _, tt := range []struct {
		in   string
		want Duration
	}{{"ttl: 0s", 0}, {`ttl: ""`, 0}, {"ttl: 90s", MustDuration("90s")}} {
		v.TTL = 1
		if err := yaml.Unmarshal([]byte(tt.in), &v); err != nil || v.TTL != tt.want {
			t.Errorf("%s = %s, %v; want %s", tt.in, v.TTL, err, tt.want)
		}
	}
	out, _ := yaml.Marshal(struct {
		TTL Duration `yaml:"ttl"`
	}{MustDuration("72h")})
	if string(out) != "ttl: 3d\n" {
		t.Errorf("Marshal = %q", out)
	}
}
