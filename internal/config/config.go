// Package config reads a Kite host's configuration: one TOML file per host
// with a section per daemon ([pool], [collector], [schedd], [startd], ...).
//
// Values come in layers, each overriding the one before: the embedded
// defaults (configs/defaults.toml), the host's file, environment variables
// (KITE_<SECTION>_<KEY>, e.g. KITE_COLLECTOR_LISTEN) and command-line
// overrides. Decoding is strict (internal/tomlstrict, which the
// simulator's scenarios share): an unknown key or a value of the wrong
// type is an error naming file:line:col, and Validate reports every
// problem at once. Config records where each value came from, which
// `kite config show` prints.
//
// Daemons convert their section into their own runtime configuration; this
// package only reads, layers and checks the file.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/kite-sched/kite/configs"
	"github.com/kite-sched/kite/internal/tomlstrict"
)

// Config is a host's configuration.
type Config struct {
	Pool       Pool       `toml:"pool"`
	TLS        TLS        `toml:"tls"`
	Log        Log        `toml:"log"`
	Membership Membership `toml:"membership"`
	Master     Master     `toml:"master"`
	Collector  Collector  `toml:"collector"`
	Negotiator Negotiator `toml:"negotiator"`
	Schedd     Schedd     `toml:"schedd"`
	Startd     Startd     `toml:"startd"`

	// File is the file the configuration was read from ("" for none), and
	// Dir the directory relative paths in it resolve against.
	File string `toml:"-"`
	Dir  string `toml:"-"`

	origins map[string]Origin
	// positions says where the file writes each value (nil without a
	// file).
	positions *tomlstrict.Positions
}

// Origin says where a value came from.
type Origin struct {
	Source string // "default", "file", "env" or "flag"
	Pos    Position
	Name   string // the environment variable, for "env"
}

func (o Origin) String() string {
	switch o.Source {
	case "file":
		return o.Pos.String()
	case "env":
		return "environment " + o.Name
	}
	return o.Source
}

// Position is a place in a configuration file; Error is a problem with
// one configuration value. Both are internal/tomlstrict's, which decodes
// the file.
type (
	Position = tomlstrict.Position
	Error    = tomlstrict.Error
)

// Default returns the embedded default configuration.
func Default() *Config {
	c := &Config{origins: map[string]Origin{}}
	md, err := toml.Decode(configs.Defaults, c)
	if err != nil {
		panic("config: embedded defaults do not decode: " + err.Error())
	}
	for _, k := range md.Keys() {
		c.origins[k.String()] = Origin{Source: "default"}
	}
	return c
}

// Load reads the configuration: the defaults, then path (if not ""), then
// the environment. It does not validate; call Validate.
func Load(path string) (*Config, error) {
	c := Default()
	if path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := c.decode(path, string(data)); err != nil {
			return nil, err
		}
	}
	if err := c.applyEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	return c, nil
}

// Parse reads a configuration from text, as if from the file name.
func Parse(name, text string) (*Config, error) {
	c := Default()
	if err := c.decode(name, text); err != nil {
		return nil, err
	}
	return c, nil
}

// decode lays the TOML text over c, strictly.
func (c *Config) decode(name, text string) error {
	c.File = name
	if abs, err := filepath.Abs(name); err == nil {
		c.Dir = filepath.Dir(abs)
	}
	md, pos, err := tomlstrict.Decode(name, text, c)
	if err != nil {
		return err
	}
	c.positions = pos
	for _, k := range md.Keys() {
		c.origins[k.String()] = Origin{Source: "file", Pos: pos.At(tomlstrict.KeyPath(k))}
	}
	return nil
}

// Origin returns where the value at key (e.g. "collector.listen") came
// from.
func (c *Config) Origin(key string) Origin {
	if o, ok := c.origins[key]; ok {
		return o
	}
	return Origin{Source: "default"}
}

// errorAt returns an error about key, placed where its value came from.
func (c *Config) errorAt(key, format string, args ...any) error {
	o := c.Origin(key)
	e := &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
	switch o.Source {
	case "file":
		e.Pos = o.Pos
	case "env":
		e.Key = o.Name
	}
	return e
}

// Path resolves a path from the configuration against its directory.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.Dir == "" {
		return p
	}
	return filepath.Join(c.Dir, p)
}

// Paths resolves each of ps as Path does.
func (c *Config) Paths(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = c.Path(p)
	}
	return out
}

// Keys returns every key the configuration knows, sorted.
func (c *Config) Keys() []string {
	var keys []string
	walkLeaves(c, func(path string, _ leaf) { keys = append(keys, path) })
	sort.Strings(keys)
	return keys
}
