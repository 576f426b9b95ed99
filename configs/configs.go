// Package configs holds Kite's configuration files, embedded: the built-in
// defaults every host starts from (defaults/, one file per section so each
// daemon's defaults sit with its own) and examples for each kind of host.
// A test decodes every one of them.
package configs

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed defaults/*.toml
var defaults embed.FS

// Examples holds the example host configurations (examples/*.toml).
//
//go:embed examples
var Examples embed.FS

// Defaults is the built-in default configuration: the files of defaults/,
// pool.toml first, then the others by name.
var Defaults = func() string {
	names, err := fs.Glob(defaults, "defaults/*.toml")
	if err != nil {
		panic(err)
	}
	sort.Slice(names, func(i, j int) bool {
		return names[i] == "defaults/pool.toml" || names[j] != "defaults/pool.toml" && names[i] < names[j]
	})
	var b strings.Builder
	for _, n := range names {
		data, err := defaults.ReadFile(n)
		if err != nil {
			panic(err)
		}
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}()
