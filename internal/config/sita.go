package config

// Sita configures the SITA-E size interval an execute host serves
// ([startd.sita]). The startd turns it into ad attributes and a
// Requirements clause (internal/sita). Intervals = 0 leaves SITA-E off.
type Sita struct {
	// Attribute is the job attribute that measures a job's size.
	// HTCondor's paper setup uses ImageSize.
	Attribute string `toml:"attribute"`
	// Intervals is the number of size intervals n the pool is cut into.
	Intervals int `toml:"intervals"`
	// Interval is this host's interval i, 1..Intervals.
	Interval int `toml:"interval"`
}
