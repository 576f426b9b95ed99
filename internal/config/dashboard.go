package config

// The collector's dashboard keys.
func init() {
	extraValidators = append(extraValidators, func(c *Config) []error {
		var errs []error
		check := func(ok bool, key, format string, args ...any) {
			if !ok {
				errs = append(errs, c.errorAt(key, format, args...))
			}
		}
		col := c.Collector
		check(col.SampleInterval.Duration > 0, "collector.sample_interval", "must be a positive duration")
		check(col.SampleHistory >= 1 && col.SampleHistory <= 1_000_000, "collector.sample_history", "must be between 1 and 1000000 samples")
		check(col.MachineHistory >= 1 && col.MachineHistory <= 100_000, "collector.machine_history", "must be between 1 and 100000 samples")
		return errs
	})
}
