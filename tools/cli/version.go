package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/daemon"
)

// buildInfo is what kite version reports: the binary's version and how it
// was built.
type buildInfo struct {
	Version  string `json:"version"`
	Module   string `json:"module"`
	Commit   string `json:"commit,omitempty"`
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the version from the linker (-X
// github.com/kite-sched/kite/internal/daemon.Version=...), else the module
// version go install recorded, and the VCS stamp go build recorded.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: daemon.Version, Module: "github.com/kite-sched/kite", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module = bi.Main.Path
	if b.Version == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// write prints the build information as lines of text.
func (b buildInfo) write(w io.Writer) error {
	commit := b.Commit
	if commit == "" {
		commit = "unknown (built without VCS information)"
	} else if b.Modified {
		commit += " (with local changes)"
	}
	_, err := fmt.Fprintf(w, "kite %s\n  module:  %s\n  commit:  %s\n", b.Version, b.Module, commit)
	if err == nil && b.Time != "" {
		_, err = fmt.Fprintf(w, "  time:    %s\n", b.Time)
	}
	if err == nil {
		_, err = fmt.Fprintf(w, "  go:      %s %s\n", b.Go, b.Platform)
	}
	return err
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version",
		Short: "Print Kite's version and build information",
		Long: `Print Kite's version, the VCS commit and its time the binary was built
from (and whether the tree had local changes), and the Go version and
platform. Release builds set the version with
-ldflags "-X github.com/kite-sched/kite/internal/daemon.Version=v1.2.3";
go install records the module's version.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			b := readBuildInfo()
			if asJSON {
				enc := json.NewEncoder(c.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			return b.write(c.OutOrStdout())
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the build information as JSON")
	return c
}
