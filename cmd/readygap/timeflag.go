package main

import (
	"fmt"
	"strings"
	"time"
)

// timeLayouts are the absolute forms --since and --until accept, tried in order.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// parseTimeFlag reads a --since/--until value: an RFC 3339 time, a date and
// time without zone (read in loc), or a duration such as 30m or 2h meaning
// that long before now. An empty value means no bound.
func parseTimeFlag(v string, now time.Time, loc *time.Location) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("duration %q must be positive (it counts back from now)", v)
		}
		return now.Add(-d).UTC(), nil
	}
	for _, layout := range timeLayouts {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use RFC 3339 (2024-05-01T12:00:00Z), \"2024-05-01 12:00:00\" or a duration back from now (30m, 2h)", v)
}
