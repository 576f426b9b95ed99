// Package cli holds the kite command tree: one cobra command per file,
// built by New. Main runs it and turns errors into exit statuses, printing
// each error once.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// Main runs kite with the process's arguments and returns its exit status.
// Run as condor_q (a link kite install-aliases made), it is kite q.
func Main() int {
	return RunAs(filepath.Base(os.Args[0]), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// Run runs kite with args and the given streams and returns the exit
// status: 0 on success, 1 on error, 2 on a usage error.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return RunAs("kite", args, stdin, stdout, stderr)
}

// RunAs is Run for the program named prog: an HTCondor tool's name
// (condor_q) runs the kite command that does its work.
func RunAs(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitCode(prog, execute(prog, args, stdin, stdout, stderr), stderr)
}

// exitCode prints a command's error (once) and returns its exit status.
func exitCode(prog string, err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var es exitStatus
	if errors.As(err, &es) && es.msg == "" {
		return es.code // a remote command's status (ssh_to_job), said by it
	}
	if !strings.HasPrefix(prog, "condor_") {
		prog = "kite"
	}
	fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	var ue usageError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &es):
		return es.code
	}
	return 1
}

func execute(prog string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	args, err := programArgs(prog, args)
	if err != nil {
		return usageError{err}
	}
	root := New()
	if args, err = htcondorArgs(root, args); err != nil {
		return err
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.Execute()
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
