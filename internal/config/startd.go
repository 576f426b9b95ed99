package config

// Startd configures the execute node.
type Startd struct {
	// Listen is the startd's host:port; port 0 picks a free one.
	Listen string `toml:"listen"`
	// Name names the machine in its ads; empty means the host name.
	Name string `toml:"name"`
	// Sita is the SITA-E size interval this host serves.
	Sita Sita `toml:"sita"`
}
