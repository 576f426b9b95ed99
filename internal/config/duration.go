package config

import (
	"fmt"
	"time"
)

// Duration is a time.Duration written in TOML as a string: "90s", "5m",
// "1h30m", "250ms".
type Duration struct{ time.Duration }

// UnmarshalText reads a duration such as "90s".
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (use a number with a unit: 250ms, 90s, 5m, 1h)", string(b))
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as Go prints it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Duration.String()), nil }
