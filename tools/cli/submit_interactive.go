package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/kite-sched/kite/internal/submit"
	"github.com/kite-sched/kite/internal/wire"
)

// kite submit -interactive (condor_submit -interactive): a slot claimed
// for a shell. As HTCondor does, the job is a vanilla universe sleep, its
// InteractiveJob true for the startds' policies; a submit file, if given,
// adds its requirements and requests, but its universe, executable and
// arguments are replaced. Once the job runs, kite ssh_to_job opens a
// shell in it; when the shell exits (or the tool is interrupted) the job
// is removed.

// interactiveSleep is how long the placeholder job sleeps: a day, the
// longest shell a slot is held for; the job is removed when its shell
// exits, so it ends sooner unless the tool is killed outright.
const interactiveSleep = 24 * 60 * 60

// interactiveLine adds the placeholder job's commands to the command
// line, after the file's own so that they win; without a file the
// command line queues the one job.
func (o *submitOptions) interactiveLine(file string, cl submit.CommandLine) (submit.CommandLine, error) {
	if o.wait.on {
		return cl, usageError{fmt.Errorf("-interactive waits for its shell, not with --wait")}
	}
	cl.Append = append(append([]string{}, cl.Append...),
		"universe = vanilla",
		"executable = /bin/sleep",
		"transfer_executable = false",
		"arguments = "+strconv.Itoa(interactiveSleep),
		"MY.InteractiveJob = True")
	if file == "" && cl.Queue == "" {
		cl.Queue = "1"
	}
	return cl, nil
}

// attach waits for the interactive job to run and opens a shell in it;
// the job is removed when the shell ends, and the tool exits with the
// shell's status.
func (o *submitOptions) attach(ctx context.Context, s *scheddConn, stdin io.Reader, stdout, stderr io.Writer, res wire.SubmitResult) error {
	id := fmt.Sprintf("%d.0", res.Cluster)
	if res.Procs != 1 {
		removeCluster(ctx, s.client, res.Cluster, stderr)
		return fmt.Errorf("-interactive runs one job; the submit file queued %d (cluster %d removed)", res.Procs, res.Cluster)
	}
	fmt.Fprintln(stdout, "Waiting for job to start...")
	ssh := &sshOptions{g: o.g, name: s.addr, autoRetry: true, removeOnInterrupt: true}
	err := ssh.run(ctx, stdin, stdout, stderr, id, nil)
	if errors.Is(err, errInterrupted) {
		return err // removed already
	}
	if rerr := removeJob(context.WithoutCancel(ctx), s.client, id, "the interactive shell exited", stderr); rerr != nil && err == nil {
		return rerr
	}
	return err
}

// removeCluster removes the jobs of a cluster submitted by mistake.
func removeCluster(ctx context.Context, c *wire.Client, cluster int64, stderr io.Writer) {
	req := wire.Act{Action: wire.ActRemove, JobSelection: wire.JobSelection{IDs: []string{strconv.FormatInt(cluster, 10)}}, Reason: "kite submit -interactive runs one job"}
	if err := c.Call(ctx, "POST", wire.PathAct, req, nil); err != nil {
		fmt.Fprintf(stderr, "removing cluster %d: %v\n", cluster, err)
	}
}
