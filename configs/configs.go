// Package configs holds Kite's example configuration files, embedded: the
// built-in defaults every host starts from, and examples for each kind of
// host. A test decodes every one of them.
package configs

import (
	"embed"
	_ "embed"
)

// Defaults is the built-in default configuration.
//
//go:embed defaults.toml
var Defaults string

// Examples holds the example host configurations (*.toml).
//
//go:embed *.toml
var Examples embed.FS
