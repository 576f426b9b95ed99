package config

// Schedd configures the job queue.
type Schedd struct {
	// Listen is the schedd's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the schedd in its ads; empty means the host name.
	Name string `toml:"name"`
}
