package dag

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Dump writes the DAG in a canonical text form, one node after another
// in file order, each with what the file set on it: for golden tests and
// `kite submit_dag -no_submit -debug`.
func Dump(w io.Writer, d *DAG) error {
	var b strings.Builder
	for i, n := range d.Nodes {
		fmt.Fprintf(&b, "%s %s", n.Kind, n.Name)
		switch {
		case n.Inline != "":
			fmt.Fprintf(&b, " inline@%d %q", n.InlinePos.Line, n.Inline)
		default:
			fmt.Fprintf(&b, " %s", n.Submit)
		}
		for _, f := range []struct {
			on   bool
			text string
		}{{n.Dir != "", "DIR " + n.Dir}, {n.Noop, "NOOP"}, {n.Done, "DONE"}} {
			if f.on {
				b.WriteString(" " + f.text)
			}
		}
		b.WriteByte('\n')
		dumpNode(&b, d, i)
	}
	cats := make([]string, 0, len(d.MaxJobs))
	for c := range d.MaxJobs {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, c := range cats {
		fmt.Fprintf(&b, "MAXJOBS %s %d\n", c, d.MaxJobs[c])
	}
	for _, f := range []struct {
		on   bool
		text string
	}{
		{d.Config != "", "CONFIG " + d.Config},
		{len(d.EnvGet) > 0, "ENV GET " + strings.Join(d.EnvGet, " ")},
		{len(d.EnvSet) > 0, "ENV SET " + strings.Join(d.EnvSet, ";")},
		{d.JobstateLog != "", "JOBSTATE_LOG " + d.JobstateLog},
		{d.Reject, "REJECT"},
	} {
		if f.on {
			b.WriteString(f.text + "\n")
		}
	}
	for _, a := range d.JobAttrs {
		fmt.Fprintf(&b, "SET_JOB_ATTR %s = %s\n", a.Name, a.Value)
	}
	if d.Dot != nil {
		fmt.Fprintf(&b, "DOT %s update=%v overwrite=%v include=%q\n", d.Dot.File, d.Dot.Update, d.Dot.Overwrite, d.Dot.Include)
	}
	if f := d.NodeStatusFile; f != nil {
		fmt.Fprintf(&b, "NODE_STATUS_FILE %s %d always=%v\n", f.File, f.MinSecs, f.Always)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dumpNode(b *strings.Builder, d *DAG, i int) {
	n := d.Nodes[i]
	names := func(idx []int) string {
		s := make([]string, len(idx))
		for k, x := range idx {
			s[k] = d.Nodes[x].Name
		}
		return strings.Join(s, " ")
	}
	if len(n.Parents) > 0 {
		fmt.Fprintf(b, "  parents %s\n", names(n.Parents))
	}
	if len(n.Weak) > 0 {
		fmt.Fprintf(b, "  weak parents %s\n", names(n.Weak))
	}
	for _, v := range n.Vars {
		mode := "PREPEND"
		if v.Append {
			mode = "APPEND"
		}
		fmt.Fprintf(b, "  VARS %s %s=%s\n", mode, v.Name, strconv.Quote(v.Value))
	}
	for k, s := range n.Scripts {
		if s == nil {
			continue
		}
		fmt.Fprintf(b, "  SCRIPT %s %q", ScriptKind(k), s.Argv)
		if s.DeferStatus > 0 {
			fmt.Fprintf(b, " DEFER %d %d", s.DeferStatus, s.DeferSecs)
		}
		if s.Debug != "" {
			fmt.Fprintf(b, " DEBUG %s %s", s.Debug, s.DebugWhich)
		}
		b.WriteByte('\n')
	}
	if n.Retry > 0 || n.HasUnlessExit {
		fmt.Fprintf(b, "  RETRY %d", n.Retry)
		if n.HasUnlessExit {
			fmt.Fprintf(b, " UNLESS-EXIT %d", n.UnlessExit)
		}
		b.WriteByte('\n')
	}
	if n.HasPreSkip {
		fmt.Fprintf(b, "  PRE_SKIP %d\n", n.PreSkip)
	}
	if n.HasAbort {
		fmt.Fprintf(b, "  ABORT-DAG-ON %d", n.AbortOn)
		if n.HasAbortReturn {
			fmt.Fprintf(b, " RETURN %d", n.AbortReturn)
		}
		b.WriteByte('\n')
	}
	if n.Priority != 0 {
		fmt.Fprintf(b, "  PRIORITY %d\n", n.Priority)
	}
	if n.Category != "" {
		fmt.Fprintf(b, "  CATEGORY %s\n", n.Category)
	}
	if n.SavePoint != "" {
		fmt.Fprintf(b, "  SAVE_POINT_FILE %s\n", n.SavePoint)
	}
}
