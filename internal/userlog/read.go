package userlog

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// SyntaxError is a malformed event in a log.
type SyntaxError struct {
	Name string // the log's name, when the Reader was given one
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Name, e.Line, e.Msg)
}

// Reader reads events from a log, following it as it grows: at the end of
// what was written so far Next returns io.EOF, and a later Next picks up
// what was appended meanwhile, including the rest of a half-written
// event.
type Reader struct {
	r       *bufio.Reader
	name    string
	line    int    // lines consumed before the event in progress
	partial []byte // an incomplete last line
	lines   []string
	first   int // line number of lines[0]
	now     func() time.Time
}

// NewReader returns a reader of the log r; name (which may be "") names it
// in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), name: name, now: time.Now}
}

// Next returns the next complete event, io.EOF when there is none yet, or
// a *SyntaxError for a malformed event (which is skipped: the next call
// goes on after it).
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(r.lines) == 0 {
			r.first = r.line
			if strings.TrimSpace(line) == "" {
				continue // blank lines between events
			}
		}
		if strings.TrimRight(line, " \t\r") == "..." {
			if len(r.lines) == 0 {
				continue // a stray end marker
			}
			lines, first := r.lines, r.first
			r.lines = nil
			return r.parse(lines, first)
		}
		r.lines = append(r.lines, line)
	}
}

// readLine returns the next whole line, without its newline.
func (r *Reader) readLine() (string, error) {
	data, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.partial = append(r.partial, data...)
		return r.readLine()
	}
	if err != nil {
		r.partial = append(r.partial, data...)
		return "", err
	}
	if len(r.partial) > 0 {
		data = append(r.partial, data...)
		r.partial = nil
	}
	r.line++
	return string(bytes.TrimRight(data, "\r\n")), nil
}

// headerRE matches "005 (012.003.000) 2026-11-22 13:09:28 text".
var headerRE = regexp.MustCompile(`^(\d{3}) \((-?\d+)\.(-?\d+)\.(-?\d+)\) (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{3})?Z?|\d\d/\d\d \d\d:\d\d:\d\d(?:\.\d{3})?Z?) ?(.*)$`)

// parse reads one event's lines.
func (r *Reader) parse(lines []string, first int) (Event, error) {
	m := headerRE.FindStringSubmatch(lines[0])
	if m == nil {
		return Event{}, &SyntaxError{Name: r.name, Line: first, Msg: fmt.Sprintf("not an event header: %q", lines[0])}
	}
	var ev Event
	code, _ := strconv.Atoi(m[1])
	ev.Code = Code(code)
	ev.Job.Cluster, _ = strconv.ParseInt(m[2], 10, 64)
	ev.Job.Proc, _ = strconv.ParseInt(m[3], 10, 64)
	ev.Job.SubProc, _ = strconv.ParseInt(m[4], 10, 64)
	t, ok := parseTime(m[5], r.now())
	if !ok {
		return Event{}, &SyntaxError{Name: r.name, Line: first, Msg: fmt.Sprintf("bad time %q", m[5])}
	}
	ev.Time = t
	details(&ev, m[6], lines[1:])
	return ev, nil
}

// details reads what the tools need from an event's text.
func details(ev *Event, text string, body []string) {
	trimmed := make([]string, len(body))
	for i, l := range body {
		trimmed[i] = strings.TrimSpace(l)
	}
	switch ev.Code {
	case Submit:
		ev.Host = strings.TrimSpace(strings.TrimPrefix(text, "Job submitted from host:"))
		if len(trimmed) > 0 {
			ev.Notes = trimmed[0]
		}
	case Execute:
		ev.Host = strings.TrimSpace(strings.TrimPrefix(text, "Job executing on host:"))
		for _, l := range trimmed {
			if s, ok := strings.CutPrefix(l, "SlotName:"); ok {
				ev.Slot = strings.TrimSpace(s)
			}
		}
	case Terminated, Evicted:
		termination(ev, trimmed)
	case Aborted, Released, ShadowException, ExecutableError:
		if len(trimmed) > 0 {
			ev.Reason = trimmed[0]
		}
	case Held:
		if len(trimmed) > 0 {
			ev.Reason = trimmed[0]
		}
		for _, l := range trimmed {
			fmt.Sscanf(l, "Code %d Subcode %d", &ev.HoldCode, &ev.HoldSubCode)
		}
	case ImageSize:
		fmt.Sscanf(text, "Image size of job updated: %d", &ev.Size)
		for _, l := range trimmed {
			n, what, _ := strings.Cut(l, "  -  ")
			switch {
			case strings.HasPrefix(what, "MemoryUsage"):
				ev.MemoryMB, _ = strconv.ParseInt(n, 10, 64)
			case strings.HasPrefix(what, "ResidentSetSize"):
				ev.RSSKB, _ = strconv.ParseInt(n, 10, 64)
			}
		}
	case RemoteError:
		rest := strings.TrimPrefix(text, "Error from ")
		ev.Slot, ev.Reason, _ = strings.Cut(rest, ": ")
	case ClusterSubmit:
		ev.Host = strings.TrimSpace(strings.TrimPrefix(text, "Cluster submitted from host:"))
		if len(trimmed) > 0 {
			ev.Notes = trimmed[0]
		}
	case ClusterRemove:
		clusterRemoval(ev, trimmed)
	case FactoryPaused:
		for i, l := range trimmed {
			switch {
			case strings.HasPrefix(l, "PauseCode "):
				fmt.Sscanf(l, "PauseCode %d", &ev.PauseCode)
			case strings.HasPrefix(l, "HoldCode "):
				fmt.Sscanf(l, "HoldCode %d", &ev.HoldCode)
			case i == 0:
				ev.Reason = l
			}
		}
	case FactoryResumed:
		if len(trimmed) > 0 {
			ev.Reason = trimmed[0]
		}
	default:
		ev.Reason = text
	}
}

// clusterRemoval reads a factory's progress, completion and notes.
func clusterRemoval(ev *Event, lines []string) {
	if len(lines) == 0 {
		return
	}
	progress, end, _ := strings.Cut(lines[0], "items.")
	fmt.Sscanf(progress, "Materialized %d jobs from %d", &ev.Materialized, &ev.Items)
	end = strings.TrimSpace(end)
	switch {
	case end == "Complete":
		ev.Completion = CompletionComplete
	case end == "Paused":
		ev.Completion = CompletionPaused
	case strings.HasPrefix(end, "Error"):
		n := int(CompletionError)
		fmt.Sscanf(end, "Error %d", &n)
		ev.Completion = Completion(n)
	}
	if len(lines) > 1 {
		ev.Notes = lines[1]
	}
}

// termination reads how a job ended and its usage.
func termination(ev *Event, lines []string) {
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "(1) Normal termination"):
			ev.Normal = true
			fmt.Sscanf(l, "(1) Normal termination (return value %d)", &ev.ReturnCode)
		case strings.HasPrefix(l, "(0) Abnormal termination"):
			fmt.Sscanf(l, "(0) Abnormal termination (signal %d)", &ev.Signal)
		case strings.HasPrefix(l, "Usr "):
			u, what := parseUsage(l)
			switch what {
			case "Run Remote Usage":
				ev.RunRemote = u
			case "Run Local Usage":
				ev.RunLocal = u
			case "Total Remote Usage":
				ev.TotalRemote = u
			case "Total Local Usage":
				ev.TotalLocal = u
			}
		}
	}
}

// parseUsage reads "Usr 0 00:01:02, Sys 0 00:00:03  -  Run Remote Usage".
func parseUsage(l string) (Usage, string) {
	var ud, uh, um, us, sd, sh, sm, ss int64
	n, _ := fmt.Sscanf(l, "Usr %d %d:%d:%d, Sys %d %d:%d:%d", &ud, &uh, &um, &us, &sd, &sh, &sm, &ss)
	_, what, _ := strings.Cut(l, "  -  ")
	if n != 8 {
		return Usage{}, what
	}
	secs := func(d, h, m, s int64) float64 { return float64(d*86400 + h*3600 + m*60 + s) }
	return Usage{User: secs(ud, uh, um, us), Sys: secs(sd, sh, sm, ss)}, strings.TrimSpace(what)
}
