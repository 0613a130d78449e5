package rules

import (
	"fmt"
	"strings"
	"time"
)

// CronZone checks the time zone and business date of a scheduled (cron) key, for idemkit design
// and for generate handler alike: zone must be an IANA zone ("" and "UTC" are UTC; "Local" names
// no zone another machine shares), and a business date names one day, so it needs a one-day
// slot. It returns the zone's name as the spec writes it ("UTC" for "") and its location; an
// error comes with the field at fault, key.time_zone or key.business_date.
func CronZone(zone string, slot time.Duration, businessDate bool) (name string, loc *time.Location, field string, err error) {
	name = strings.TrimSpace(zone)
	if name == "" {
		name = "UTC"
	}
	loc, err = time.LoadLocation(name)
	if err != nil || name == "Local" {
		return "", nil, "key.time_zone", fmt.Errorf("%q is not an IANA time zone; give the zone the schedule is written in, e.g. Europe/Berlin or UTC", name)
	}
	if businessDate && slot != 24*time.Hour {
		return "", nil, "key.business_date", fmt.Errorf("a business date names one day: it needs a 1d schedule, not %s", Duration(slot))
	}
	return name, loc, "", nil
}
