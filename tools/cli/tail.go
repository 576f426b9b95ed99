package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/wire"
)

// kite tail (condor_tail): the last bytes of a running job's output, or
// of files it will send back, read through its schedd, which asks the
// startd that runs it; -follow keeps reading what the job appends.

// tailPoll is how often -follow asks for more: well within a second of a
// write, as a person watching expects.
const tailPoll = 250 * time.Millisecond

// tailRetry is how often -auto-retry asks again while the job has not
// started, HTCondor's two seconds.
const tailRetry = 2 * time.Second

type tailOptions struct {
	g                 *globals
	name              string
	stderr, noStdout  bool
	follow, autoRetry bool
	maxBytes          int
}

func init() { addCommand(newTailCmd) }

func newTailCmd(g *globals) *cobra.Command {
	o := &tailOptions{g: g}
	c := &cobra.Command{
		Use:   "tail [options] cluster.proc [file ...]",
		Short: "Show the last bytes of a running job's output (condor_tail)",
		Long: `Show the last bytes of a running job's standard output (the default), its
error output (-stderr, instead of the output) or of files it sends back (each
must be in its transfer_output_files), read on the machine that runs it as
the job's user. -maxbytes bounds each read (1024 bytes by default); -follow
keeps printing what the job writes until interrupted or the job stops
running. Only the job's owner and administrators may read its files.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return o.run(c.Context(), c.OutOrStdout(), c.ErrOrStderr(), args[0], args[1:])
		},
	}
	f := c.Flags()
	f.StringVar(&o.name, "name", "", "the schedd (its name or host:port)")
	f.BoolVar(&o.stderr, "stderr", false, "show the job's error output instead of its output")
	f.BoolVar(&o.noStdout, "no-stdout", false, "do not show the job's output")
	f.BoolVarP(&o.follow, "follow", "f", false, "keep showing what the job writes, until interrupted")
	f.BoolVar(&o.autoRetry, "auto-retry", false, "ask again every 2 seconds while the job has not started")
	f.IntVar(&o.maxBytes, "maxbytes", 1024, "the most bytes to show of each read")
	return c
}

// tailSource is one file being shown and where its next read begins.
type tailSource struct {
	rng wire.FileRange
}

func (o *tailOptions) sources(files []string) ([]*tailSource, error) {
	if o.maxBytes < 1 || o.maxBytes > wire.MaxFileChunk {
		return nil, usageError{fmt.Errorf("-maxbytes %d: give 1 to %d", o.maxBytes, wire.MaxFileChunk)}
	}
	var out []*tailSource
	add := func(stream, name string) {
		out = append(out, &tailSource{wire.FileRange{Stream: stream, Name: name, Offset: -1, Max: o.maxBytes}})
	}
	switch {
	case o.stderr:
		add(wire.StreamStderr, "")
	case !o.noStdout:
		add(wire.StreamStdout, "")
	}
	for _, f := range files {
		add("", f)
	}
	if len(out) == 0 {
		return nil, usageError{errors.New("-no-stdout and no file: nothing to show")}
	}
	return out, nil
}

func (o *tailOptions) run(ctx context.Context, stdout, stderr io.Writer, job string, files []string) error {
	if !isJobID(job) || !hasProc(job) {
		return usageError{fmt.Errorf("%q is not a job id (cluster.proc)", job)}
	}
	srcs, err := o.sources(files)
	if err != nil {
		return err
	}
	s, err := o.g.findSchedd(ctx, o.name)
	if err != nil {
		return err
	}
	read := func(src *tailSource) error {
		for {
			var chunk wire.FileChunk
			err := s.client.Call(ctx, "POST", wire.PathTail, wire.TailRequest{Job: job, FileRange: src.rng}, &chunk)
			if err != nil {
				return err
			}
			if _, err := stdout.Write(chunk.Data); err != nil {
				return err
			}
			src.rng.Offset = chunk.Offset + int64(len(chunk.Data))
			if !o.follow || src.rng.Offset >= chunk.Size {
				return nil // more waits for the next poll
			}
		}
	}
	if err := o.first(ctx, srcs, read); err != nil {
		return err
	}
	if !o.follow {
		return nil
	}
	tick := time.NewTicker(tailPoll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		for _, src := range srcs {
			err := read(src)
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return nil // interrupted
			case wire.IsCode(err, wire.CodeConflict), wire.IsCode(err, wire.CodeNotFound):
				fmt.Fprintf(stderr, "%v\n", err)
				return nil // the job stopped running: nothing more to follow
			default:
				return err
			}
		}
	}
}

// first reads each source once; with -auto-retry a job that has not
// started yet is asked again every two seconds.
func (o *tailOptions) first(ctx context.Context, srcs []*tailSource, read func(*tailSource) error) error {
	for _, src := range srcs {
		for {
			err := read(src)
			if err == nil {
				break
			}
			if !o.autoRetry || !wire.IsCode(err, wire.CodeConflict) {
				return err
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(tailRetry):
			}
		}
	}
	return nil
}

func hasProc(id string) bool {
	_, _, ok := cut(id, '.')
	return ok
}
