package dag

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"time"
)

// RescueVersion is the rescue DAG format Kite writes: HTCondor's
// "partial" rescue DAG, applied over the DAG file it was written for
// (dagman-completion.rst, "The Rescue DAG").
const RescueVersion = "2.1.0"

// RescueName is the name of the n-th rescue DAG of a DAG file:
// file.rescue001, ...
func RescueName(dagFile string, n int) string { return fmt.Sprintf("%s.rescue%03d", dagFile, n) }

// MaxRescue is the highest rescue DAG number (DAGMan's default
// DAGMAN_MAX_RESCUE_NUM).
const MaxRescue = 100

// NewestRescue returns the number of a DAG file's newest rescue DAG, 0
// when it has none: rescue DAGs are numbered from 1 with no gap. stat
// reports whether a file exists (os.Stat, or one run as the DAG's owner);
// an error other than fs.ErrNotExist is returned.
func NewestRescue(dagFile string, stat func(name string) error) (int, error) {
	newest := 0
	for n := 1; n <= MaxRescue; n++ {
		if err := stat(RescueName(dagFile, n)); err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				return 0, err
			}
			break
		}
		newest = n
	}
	return newest, nil
}

// WriteRescue writes the rescue DAG of a finished (or stopped) run: a
// DONE line for each node that succeeded, the FINAL and SERVICE nodes
// never (a SERVICE node runs again with the DAG).
func WriteRescue(w io.Writer, r *Run, at time.Time) error {
	b := bufio.NewWriter(w)
	d := r.DAG
	var done, failed []string
	for i, n := range d.Nodes {
		switch r.Nodes[i].Status {
		case Done:
			if i != d.Final && n.Kind != KindService {
				done = append(done, n.Name)
			}
		case Failed:
			if n.Kind != KindService {
				failed = append(failed, n.Name)
			}
		}
	}
	at = at.UTC()
	fmt.Fprintf(b, "# Rescue DAG file, created after running\n#   the %s DAG file\n", path0(d.File))
	fmt.Fprintf(b, "# Created %d/%d/%d %02d:%02d:%02d UTC\n", int(at.Month()), at.Day(), at.Year(), at.Hour(), at.Minute(), at.Second())
	fmt.Fprintf(b, "# Rescue DAG version: %s\n#\n", RescueVersion)
	fmt.Fprintf(b, "# Total number of Nodes: %d\n# Nodes premarked DONE: %d\n# Nodes that failed: %d\n", len(d.Nodes), len(done), len(failed))
	fmt.Fprintf(b, "#   %s<ENDLIST>\n\n", joinList(failed))
	for _, name := range done {
		fmt.Fprintf(b, "DONE %s\n", name)
	}
	return b.Flush()
}

// joinList is HTCondor's list of failed nodes: each followed by a comma.
func joinList(names []string) string {
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte(',')
	}
	return b.String()
}

// ApplyRescue reads a rescue DAG over the DAG it was written for: its
// DONE lines mark nodes done, its RETRY lines set retries left. Anything
// else is refused, at file:line:col.
func ApplyRescue(d *DAG, name string, src []byte) error {
	r := newLines(name, src)
	var errs ErrorList
	add := func(at Pos, format string, args ...any) {
		if len(errs) < maxErrors {
			errs = append(errs, &Error{Pos: at, Msg: fmt.Sprintf(format, args...)})
		}
	}
	type change func()
	var changes []change
	var toks []token
	for {
		l, ok := r.logical()
		if !ok {
			break
		}
		toks = l.fields(toks)
		kw := keyword(toks[0].text)
		at := l.pos(toks[0].off)
		if (kw != "DONE" && kw != "RETRY") || len(toks) < 2 {
			add(at, "a rescue DAG holds DONE <node> and RETRY <node> <n> lines, not %q", l.text)
			continue
		}
		i := d.Node(toks[1].text)
		if i < 0 {
			add(l.pos(toks[1].off), "node %s is not in %s", toks[1].text, d.File)
			continue
		}
		n := d.Nodes[i]
		if kw == "DONE" {
			if i == d.Final {
				add(at, "the FINAL node %s cannot be DONE", n.Name)
				continue
			}
			changes = append(changes, func() { n.Done = true })
			continue
		}
		p := newParser(Options{}, 0)
		set, ok := retry(p, l, toks[2:], at)
		if !ok {
			errs = append(errs, p.errs...)
			continue
		}
		changes = append(changes, func() { set(n) })
	}
	if len(errs) > 0 {
		return errs
	}
	for _, c := range changes {
		c()
	}
	return nil
}

// SavePointPath is where a save point file named name is, for a DAG run
// in dir (dagman-completion.rst, "DAG Save Point Files"): a name with a
// directory is from dir (or absolute); a bare name is in dir/save_files.
// The file is a rescue DAG, applied as one (condor_submit_dag -load_save).
func SavePointPath(dir, name string) string {
	switch {
	case path.IsAbs(name):
		return name
	case strings.Contains(name, "/"):
		return path.Join(dir, name)
	}
	return path.Join(dir, "save_files", name)
}
