package rules

import (
	"strings"
	"testing"
	"time"
)

// TestCronZone: the one check design and generate handler share for a cron key's zone and
// business date, each refusal naming its field.
func TestCronZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zone     string
		slot     time.Duration
		business bool
		name     string // the zone's name, or the field at fault
		errPart  string
	}{
		{"", time.Hour, false, "UTC", ""},
		{" Europe/Berlin ", 24 * time.Hour, true, "Europe/Berlin", ""},
		{"Local", time.Hour, false, "key.time_zone", `"Local" is not an IANA time zone`},
		{"CEST", time.Hour, false, "key.time_zone", "e.g. Europe/Berlin"},
		{"Europe/Berlin", time.Hour, true, "key.business_date", "needs a 1d schedule, not 1h"},
	} {
		name, loc, field, err := CronZone(tc.zone, tc.slot, tc.business)
		switch {
		case tc.errPart == "" && (err != nil || name != tc.name || loc == nil || loc.String() != tc.name):
			t.Errorf("CronZone(%q) = %q, %v, %v; want %s", tc.zone, name, loc, err, tc.name)
		case tc.errPart != "" && (err == nil || field != tc.name || !strings.Contains(err.Error(), tc.errPart)):
			t.Errorf("CronZone(%q, %v, %v) = field %q, %v; want %s and %q", tc.zone, tc.slot, tc.business, field, err, tc.name, tc.errPart)
		}
	}
}
