// Package cli holds the kite command tree: one cobra command per file,
// built by New. Main runs it and turns errors into exit statuses, printing
// each error once.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Main runs kite with the process's arguments and returns its exit status.
func Main() int {
	return Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs kite with args and the given streams and returns the exit
// status: 0 on success, 1 on error, 2 on a usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := New()
	root.SetArgs(htcondorArgs(root, args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintf(stderr, "kite: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// New returns the root command.
func New() *cobra.Command {
	root := &cobra.Command{
		Use:           "kite",
		Short:         "Kite: a Condor-style distributed job scheduler",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	g := &globals{}
	g.register(root)
	for _, c := range commands {
		root.AddCommand(c(g))
	}
	return root
}

// commands makes the top-level commands; each command's file adds its own
// in init, so files of separate commands never need the same edit.
var commands []func(*globals) *cobra.Command

func addCommand(c func(*globals) *cobra.Command) { commands = append(commands, c) }

// usageError marks a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// htcondorArgs accepts HTCondor's single-dash long options: -long, -af,
// -constraint EXPR, -af:h. A single-dash word naming a long flag of any
// command becomes the double-dash form; "-af:lh" becomes "--af=lh".
func htcondorArgs(root *cobra.Command, args []string) []string {
	long := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { long[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' {
			continue
		}
		name, rest := a[1:], ""
		if j := strings.IndexAny(name, "=:"); j >= 0 {
			name, rest = name[:j], "="+name[j+1:]
		}
		if long[name] {
			out[i] = "--" + name + rest
		}
	}
	return out
}
