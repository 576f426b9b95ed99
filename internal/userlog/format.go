package userlog

import (
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Options choose the header's time format, as HTCondor's
// DEFAULT_USERLOG_FORMAT_OPTIONS do.
type Options struct {
	// Legacy writes "MM/DD HH:MM:SS" instead of ISO "YYYY-MM-DD HH:MM:SS".
	Legacy bool
	// UTC writes times in UTC, marked with a Z.
	UTC bool
	// SubSecond adds milliseconds.
	SubSecond bool
}

// Append appends one event in HTCondor's text format, "..." line included.
func (o Options) Append(buf []byte, ev *Event) []byte {
	var f Formatter
	f.Options = o
	return f.Append(buf, ev)
}

// Formatter formats events like Options.Append, remembering the last
// header time it printed: a batch of events of one second (a submit of
// 100 000 jobs) formats its time once.
type Formatter struct {
	Options
	last     time.Time
	lastText []byte
}

// Append appends one event in HTCondor's text format, "..." line included.
func (f *Formatter) Append(buf []byte, ev *Event) []byte {
	buf = f.header(buf, ev)
	if f := bodies[ev.Code]; f != nil {
		return append(f(buf, ev), "...\n"...)
	}
	buf = append(buf, ev.Reason...)
	return append(buf, "\n...\n"...)
}

// header writes "005 (012.003.000) 2026-11-22 13:09:28 ".
func (f *Formatter) header(buf []byte, ev *Event) []byte {
	buf = pad3(buf, int64(ev.Code))
	buf = append(buf, " ("...)
	buf = pad3(buf, ev.Job.Cluster)
	buf = append(buf, '.')
	buf = pad3(buf, ev.Job.Proc)
	buf = append(buf, '.')
	buf = pad3(buf, ev.Job.SubProc)
	buf = append(buf, ") "...)
	if f.lastText == nil || !ev.Time.Equal(f.last) {
		f.last, f.lastText = ev.Time, f.timeText(f.lastText[:0], ev.Time)
	}
	buf = append(buf, f.lastText...)
	return append(buf, ' ')
}

// timeText formats a header's time.
func (o Options) timeText(buf []byte, t time.Time) []byte {
	if o.UTC {
		t = t.UTC()
	} else {
		t = t.Local()
	}
	layout := "2006-01-02 15:04:05"
	if o.Legacy {
		layout = "01/02 15:04:05"
	}
	if o.SubSecond {
		layout += ".000"
	}
	buf = t.AppendFormat(buf, layout)
	if o.UTC {
		buf = append(buf, 'Z')
	}
	return buf
}

// pad3 writes n with at least three digits, as %03d does (-1 is "-01").
func pad3(buf []byte, n int64) []byte {
	if n < 0 && n > -10 {
		return strconv.AppendInt(append(buf, "-0"...), -n, 10)
	}
	if n >= 0 && n < 100 {
		buf = append(buf, '0')
		if n < 10 {
			buf = append(buf, '0')
		}
	}
	return strconv.AppendInt(buf, n, 10)
}

// bodies write each event's text after the header.
var bodies = map[Code]func([]byte, *Event) []byte{
	Submit: func(b []byte, ev *Event) []byte {
		b = fmt.Appendf(b, "Job submitted from host: %s\n", ev.Host)
		if ev.Notes != "" {
			b = fmt.Appendf(b, "    %s\n", ev.Notes)
		}
		return b
	},
	Execute: func(b []byte, ev *Event) []byte {
		b = append(append(append(b, "Job executing on host: "...), ev.Host...), '\n')
		if ev.Slot != "" {
			b = append(append(append(b, "\tSlotName: "...), ev.Slot...), '\n')
		}
		return b
	},
	ExecutableError: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "(%d) Job file not executable.\n\t%s\n", 0, ev.Reason)
	},
	Evicted: func(b []byte, ev *Event) []byte {
		b = append(b, "Job was evicted.\n\t(0) Job was not checkpointed.\n"...)
		b = usageLine(b, ev.RunRemote, "Run Remote Usage")
		b = usageLine(b, ev.RunLocal, "Run Local Usage")
		b = fmt.Appendf(b, "\t%d  -  Run Bytes Sent By Job\n\t%d  -  Run Bytes Received By Job\n", ev.SentBytes, ev.ReceivedBytes)
		if ev.Reason != "" {
			b = fmt.Appendf(b, "\t%s\n", ev.Reason)
		}
		return b
	},
	Terminated: terminated,
	ImageSize: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Image size of job updated: %d\n\t%d  -  MemoryUsage of job (MB)\n\t%d  -  ResidentSetSize of job (KB)\n",
			ev.Size, ev.MemoryMB, ev.RSSKB)
	},
	ShadowException: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Shadow exception!\n\t%s\n\t%d  -  Run Bytes Sent By Job\n\t%d  -  Run Bytes Received By Job\n",
			ev.Reason, ev.SentBytes, ev.ReceivedBytes)
	},
	Aborted: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job was aborted.\n\t%s\n", ev.Reason)
	},
	Suspended: func(b []byte, ev *Event) []byte {
		return append(b, "Job was suspended.\n\tNumber of processes actually suspended: 1\n"...)
	},
	Unsuspended: func(b []byte, ev *Event) []byte { return append(b, "Job was unsuspended.\n"...) },
	Held: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job was held.\n\t%s\n\tCode %d Subcode %d\n", ev.Reason, ev.HoldCode, ev.HoldSubCode)
	},
	Released: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job was released.\n\t%s\n", ev.Reason)
	},
	RemoteError: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Error from %s: %s\n", ev.Slot, ev.Reason)
	},
	Disconnected: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job disconnected, attempting to reconnect\n    %s\n    Trying to reconnect to %s %s\n", ev.Reason, ev.Slot, ev.Host)
	},
	Reconnected: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job reconnected to %s\n    startd address: %s\n", ev.Slot, ev.Host)
	},
	ReconnectFailed: func(b []byte, ev *Event) []byte {
		return fmt.Appendf(b, "Job reconnection failed\n    %s\n    Can not reconnect to %s, rescheduling job\n", ev.Reason, ev.Slot)
	},
	ClusterSubmit: func(b []byte, ev *Event) []byte {
		b = fmt.Appendf(b, "Cluster submitted from host: %s\n", ev.Host)
		if ev.Notes != "" {
			b = fmt.Appendf(b, "    %s\n", ev.Notes)
		}
		return b
	},
	ClusterRemove: clusterRemoved,
	FactoryPaused: func(b []byte, ev *Event) []byte {
		b = append(b, "Job Materialization Paused\n"...)
		if ev.Reason != "" || ev.PauseCode != 0 {
			b = fmt.Appendf(b, "\t%s\n", ev.Reason)
		}
		if ev.PauseCode != 0 {
			b = fmt.Appendf(b, "\tPauseCode %d\n", ev.PauseCode)
		}
		if ev.HoldCode != 0 {
			b = fmt.Appendf(b, "\tHoldCode %d\n", ev.HoldCode)
		}
		return b
	},
	FactoryResumed: func(b []byte, ev *Event) []byte {
		b = append(b, "Job Materialization Resumed\n"...)
		if ev.Reason != "" {
			b = fmt.Appendf(b, "\t%s\n", ev.Reason)
		}
		return b
	},
}

// clusterRemoved writes a ClusterRemove event: the factory's progress
// and how it ended. (HTCondor writes the progress and the completion on
// one line, a tab between them.)
func clusterRemoved(b []byte, ev *Event) []byte {
	b = append(b, "Cluster removed\n"...)
	b = fmt.Appendf(b, "\tMaterialized %d jobs from %d items.", ev.Materialized, ev.Items)
	switch c := ev.Completion; {
	case c <= CompletionError:
		b = fmt.Appendf(b, "\tError %d\n", int(c))
	case c == CompletionComplete:
		b = append(b, "\tComplete\n"...)
	case c >= CompletionPaused:
		b = append(b, "\tPaused\n"...)
	default:
		b = append(b, "\tIncomplete\n"...)
	}
	if ev.Notes != "" {
		b = fmt.Appendf(b, "\t%s\n", ev.Notes)
	}
	return b
}

// terminated writes a terminated event: how the job ended, its usage, its
// resources and the closing sentence.
func terminated(b []byte, ev *Event) []byte {
	// Written without fmt: every job that completes has one.
	b = append(b, "Job terminated.\n"...)
	if ev.Normal {
		b = strconv.AppendInt(append(b, "\t(1) Normal termination (return value "...), int64(ev.ReturnCode), 10)
		b = append(b, ")\n"...)
	} else {
		b = strconv.AppendInt(append(b, "\t(0) Abnormal termination (signal "...), int64(ev.Signal), 10)
		b = append(b, ")\n\t(0) No core file\n"...)
	}
	b = usageLine(b, ev.RunRemote, "Run Remote Usage")
	b = usageLine(b, ev.RunLocal, "Run Local Usage")
	b = usageLine(b, ev.TotalRemote, "Total Remote Usage")
	b = usageLine(b, ev.TotalLocal, "Total Local Usage")
	b = bytesLine(b, ev.SentBytes, "Run Bytes Sent By Job")
	b = bytesLine(b, ev.ReceivedBytes, "Run Bytes Received By Job")
	b = bytesLine(b, ev.TotalSent, "Total Bytes Sent By Job")
	b = bytesLine(b, ev.TotalReceived, "Total Bytes Received By Job")
	b = resources(b, ev.Resources)
	b = ev.Time.UTC().AppendFormat(append(b, "\n\tJob terminated of its own accord at "...), "2006-01-02T15:04:05Z")
	if ev.Normal {
		b = strconv.AppendInt(append(b, " with exit-code "...), int64(ev.ReturnCode), 10)
	} else {
		b = strconv.AppendInt(append(b, " with signal "...), int64(ev.Signal), 10)
	}
	return append(b, ".\n"...)
}

// bytesLine writes "\t1234  -  Run Bytes Sent By Job".
func bytesLine(b []byte, n int64, what string) []byte {
	b = strconv.AppendInt(append(b, '\t'), n, 10)
	return append(append(append(b, "  -  "...), what...), '\n')
}

// usageLine writes "\t\tUsr 0 00:01:02, Sys 0 00:00:03  -  Run Remote Usage".
func usageLine(b []byte, u Usage, what string) []byte {
	b = append(b, "\t\tUsr "...)
	b = appendDuration(b, u.User)
	b = append(b, ", Sys "...)
	b = appendDuration(b, u.Sys)
	b = append(b, "  -  "...)
	b = append(b, what...)
	return append(b, '\n')
}

// appendDuration writes seconds as "D HH:MM:SS".
func appendDuration(b []byte, secs float64) []byte {
	s := int64(max(secs, 0) + 0.5)
	b = strconv.AppendInt(b, s/86400, 10)
	b = pad2(append(b, ' '), s%86400/3600)
	b = pad2(append(b, ':'), s%3600/60)
	return pad2(append(b, ':'), s%60)
}

// pad2 writes n as fmt's %02d does.
func pad2(b []byte, n int64) []byte {
	if n >= 0 && n < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, n, 10)
}

// resources writes the partitionable resources table.
func resources(b []byte, rs []Resource) []byte {
	if len(rs) == 0 {
		return b
	}
	b = append(b, "\tPartitionable Resources :    Usage  Request Allocated\n"...)
	for _, r := range rs {
		usage := ""
		if r.Usage >= 0 {
			usage = number(r.Usage)
		}
		b = padRight(append(b, "\t   "...), r.Name, 20)
		b = padLeft(append(b, " : "...), usage, 8)
		b = padLeft(append(b, ' '), number(r.Request), 8)
		b = padLeft(append(b, ' '), number(r.Allocated), 9)
		b = append(b, '\n')
	}
	return b
}

// padRight writes s as fmt's %-Ns does (width in runes).
func padRight(b []byte, s string, width int) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < width; n++ {
		b = append(b, ' ')
	}
	return b
}

// padLeft writes s as fmt's %Ns does.
func padLeft(b []byte, s string, width int) []byte {
	for n := utf8.RuneCountInString(s); n < width; n++ {
		b = append(b, ' ')
	}
	return append(b, s...)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// timeLayouts are the header time formats a Reader accepts.
var timeLayouts = []string{
	"2006-01-02 15:04:05.000Z", "2006-01-02 15:04:05Z", "2006-01-02 15:04:05.000", "2006-01-02 15:04:05",
	"01/02 15:04:05.000Z", "01/02 15:04:05Z", "01/02 15:04:05.000", "01/02 15:04:05",
}

// parseTime reads a header time; legacy times, which have no year, get
// the year of now (or the one before, for a date ahead of now).
func parseTime(s string, now time.Time) (time.Time, bool) {
	for _, l := range timeLayouts {
		loc := time.Local
		if s != "" && s[len(s)-1] == 'Z' {
			loc = time.UTC
		}
		t, err := time.ParseInLocation(l, s, loc)
		if err != nil {
			continue
		}
		if l[0] == '0' { // no year
			t = t.AddDate(now.Year(), 0, 0)
			if t.After(now.Add(24 * time.Hour)) {
				t = t.AddDate(-1, 0, 0)
			}
		}
		return t, true
	}
	return time.Time{}, false
}
