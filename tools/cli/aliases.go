package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
)

func init() { addCommand(func(*globals) *cobra.Command { return newInstallAliasesCmd() }) }

func newInstallAliasesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "install-aliases DIR",
		Short: "Link HTCondor's tool names (condor_q, condor_submit, ...) to kite in DIR",
		Long: `Make in DIR a symbolic link to this kite binary for each HTCondor tool Kite
has: condor_submit, condor_q, condor_status, condor_rm, condor_hold,
condor_release, condor_qedit, condor_history, condor_wait, condor_userprio,
condor_reschedule, ... Run by such a name, kite is the kite command that does
that tool's work (condor_q -af ClusterId is kite q -af ClusterId), so scripts
and programs written for HTCondor work unchanged. Put DIR on PATH.

Running it again changes nothing; a link pointing elsewhere is replaced, and
a file that is not a link is left alone and reported.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			self, err := os.Executable()
			if err != nil {
				self = selfPath()
			}
			return installAliases(c.OutOrStdout(), args[0], self)
		},
	}
}

// installAliases links each of condorTools's names in dir to target.
func installAliases(w io.Writer, dir, target string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	made, kept := 0, 0
	var errs []error
	for _, name := range condorToolNames() {
		switch changed, err := linkAlias(filepath.Join(dir, name), target); {
		case err != nil:
			errs = append(errs, err)
		case changed:
			made++
		default:
			kept++
		}
	}
	fmt.Fprintf(w, "%d HTCondor tool name(s) linked to %s in %s (%d already there).\n", made, target, dir, kept)
	return errors.Join(errs...)
}

// linkAlias makes path a symbolic link to target, replacing a link to
// something else but never a file that is not a link. It reports whether
// it changed anything.
func linkAlias(path, target string) (bool, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return false, err
	case fi.Mode()&fs.ModeSymlink == 0:
		return false, fmt.Errorf("%s exists and is not a link: left alone (remove it to link it to kite)", path)
	default:
		if now, err := os.Readlink(path); err == nil && now == target {
			return false, nil
		}
		if err := os.Remove(path); err != nil {
			return false, err
		}
	}
	if err := os.Symlink(target, path); err != nil {
		return false, fmt.Errorf("linking %s: %w", path, err)
	}
	return true, nil
}
