package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// kite transfer_data (condor_transfer_data) fetches the output of jobs
// whose files the schedd spooled: HTCondor's condor_submit -spool (and
// -remote) sends a job's input to the schedd and keeps its output there
// until this tool fetches it. Kite has no spool: kite submit refuses
// -spool and -remote, the schedd reads a job's input from its submit
// directory and writes its output there (into Iwd, as the job's owner)
// when it completes. No job ever has spooled data, so the tool refuses,
// naming why, rather than succeed at nothing.

// errNoSpool is transfer_data's answer.
var errNoSpool = errors.New("not supported: Kite does not spool jobs (kite submit refuses -spool and -remote): " +
	"the schedd writes each job's output files into its initial directory (Iwd) when it completes, " +
	"so there is no spooled output to transfer; kite history -af Iwd shows where a job's files went")

func init() { addCommand(newTransferDataCmd) }

func newTransferDataCmd(g *globals) *cobra.Command {
	var name, constraint string
	var all bool
	c := &cobra.Command{
		Use:   "transfer_data [options] [cluster | cluster.proc | user ...]",
		Short: "Fetch spooled job output (condor_transfer_data): refused, as Kite spools nothing",
		Long: `condor_transfer_data fetches the output that HTCondor's schedd kept for jobs
submitted with condor_submit -spool or -remote. Kite has no spool: kite
submit refuses those options, and the schedd writes every job's output
files into the job's initial directory when it completes. So kite
transfer_data takes condor_transfer_data's command line and refuses it,
saying so, instead of succeeding at nothing.`,
		RunE: func(*cobra.Command, []string) error { return errNoSpool },
	}
	f := c.Flags()
	f.StringVar(&name, "name", "", "the schedd (its name or host:port)")
	f.StringVar(&constraint, "constraint", "", "the jobs for which the expression is true")
	f.BoolVar(&all, "all", false, "every job you may change")
	f.String("addr", "", "the schedd's address (as -name host:port)")
	return c
}
