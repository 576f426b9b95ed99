// Package cli holds the kite command tree: one cobra command per file,
// built by New. Main runs it and turns errors into exit statuses, printing
// each error once.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Main runs kite with the process's arguments and returns its exit status.
func Main() int {
	return Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs kite with args and the given streams and returns the exit
// status: 0 on success, 1 on error, 2 on a usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := New()
	root.SetArgs(args)
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
	root.AddCommand(newClassAdCmd(), newVersionCmd(), newInitCmd(), newTokenCmd(g), newConfigCmd(g))
	return root
}

// usageError marks a mistake in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }
