package cli

// Progress of a batch of jobs, as kite q -watch, kite wait -progress and
// kite submit --wait show it: counts by state, a bar, the rate of
// completions and an ETA. Everything here is a pure function of counts
// and times (the clock is an argument), so that it is tested by tables;
// progress_display.go draws it on a terminal or a log.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// jobState is where a watched job is: in the queue (idle, running, held,
// suspended) or gone from it (completed, removed, or gone without a
// record of how).
type jobState uint8

const (
	stateIdle jobState = iota
	stateRunning
	stateHeld
	stateSuspended
	stateCompleted
	stateRemoved
	stateGone // left the queue; the history has no record of how
)

// left reports whether a job in this state has left the queue for good.
func (s jobState) left() bool { return s >= stateCompleted }

// jobCounts counts the jobs of a batch by state.
type jobCounts struct {
	Total                          int
	Idle, Running, Held, Suspended int
	Completed, Removed, Gone       int
	// Failed counts completed jobs that exited non-zero or by a signal.
	Failed int
}

// count adds one job in state s.
func (c *jobCounts) count(s jobState) {
	c.Total++
	switch s {
	case stateIdle:
		c.Idle++
	case stateRunning:
		c.Running++
	case stateHeld:
		c.Held++
	case stateSuspended:
		c.Suspended++
	case stateCompleted:
		c.Completed++
	case stateRemoved:
		c.Removed++
	case stateGone:
		c.Gone++
	}
}

// add adds o's counts to c.
func (c *jobCounts) add(o jobCounts) {
	c.Total += o.Total
	c.Idle += o.Idle
	c.Running += o.Running
	c.Held += o.Held
	c.Suspended += o.Suspended
	c.Completed += o.Completed
	c.Removed += o.Removed
	c.Gone += o.Gone
	c.Failed += o.Failed
}

// done is how many jobs left the queue, as condor_q's DONE column.
func (c jobCounts) done() int { return c.Completed + c.Removed + c.Gone }

// remaining is how many jobs are still in the queue.
func (c jobCounts) remaining() int { return c.Total - c.done() }

// stuck reports whether nothing can move without a user: every job left
// in the queue is held.
func (c jobCounts) stuck() bool { return c.Held > 0 && c.Held == c.remaining() }

// percent is the share of jobs done, rounded down (100 only when all are).
func (c jobCounts) percent() int {
	if c.Total == 0 {
		return 0
	}
	return c.done() * 100 / c.Total
}

// rateSpan is how many of the latest completions the rate is measured
// over: enough to smooth the bursts of jobs that start together, few
// enough to follow a pool that grows or shrinks.
const rateSpan = 20

// minRateSpan is the shortest time a rate is measured over.
const minRateSpan = time.Second

// throughput estimates the rate of completions over a sliding window: the
// time since the (rateSpan+1)-th latest completion, or since the start
// when there were fewer. The window ends now, so the rate decays while
// nothing completes and the ETA grows, as it should.
type throughput struct {
	start time.Time   // when the jobs were submitted; zero if unknown
	ends  []time.Time // the latest completion times, oldest first
	seen  int         // completions added in all
}

// add records a completion at t (in any order).
func (t *throughput) add(at time.Time) {
	t.seen++
	i, _ := slices.BinarySearchFunc(t.ends, at, func(a, b time.Time) int { return a.Compare(b) })
	t.ends = slices.Insert(t.ends, i, at)
	if len(t.ends) > rateSpan+1 {
		t.ends = slices.Delete(t.ends, 0, len(t.ends)-(rateSpan+1))
	}
}

// since notes that the jobs were submitted at t, if that is earlier than
// what is known.
func (t *throughput) since(at time.Time) {
	if !at.IsZero() && (t.start.IsZero() || at.Before(t.start)) {
		t.start = at
	}
}

// rate returns completions per second at now; ok is false when there is
// not enough data (no completion yet, or a window under a second).
func (t *throughput) rate(now time.Time) (perSec float64, ok bool) {
	n := len(t.ends)
	if n == 0 {
		return 0, false
	}
	var anchor time.Time
	count := n
	switch {
	case t.seen > rateSpan:
		anchor, count = t.ends[n-1-rateSpan], rateSpan
	case !t.start.IsZero() && !t.start.After(t.ends[0]):
		anchor = t.start
	default: // the start is unknown: measure from the first completion
		anchor, count = t.ends[0], n-1
	}
	span := now.Sub(anchor)
	if count == 0 || span < minRateSpan {
		return 0, false
	}
	return float64(count) / span.Seconds(), true
}

// eta is the time left for remaining jobs at the current rate; ok is
// false when it cannot be told.
func (t *throughput) eta(remaining int, now time.Time) (time.Duration, bool) {
	if remaining <= 0 {
		return 0, true
	}
	r, ok := t.rate(now)
	if !ok {
		return 0, false
	}
	return time.Duration(float64(remaining) / r * float64(time.Second)).Round(time.Second), true
}

// etaText is the ETA column: "done", "--" when unknown, else a span.
func etaText(c jobCounts, t *throughput, now time.Time) string {
	if c.remaining() == 0 && c.Total > 0 {
		return "done"
	}
	d, ok := t.eta(c.remaining(), now)
	if !ok {
		return "--"
	}
	return formatSpan(d)
}

// formatSpan prints a duration briefly: 45s, 3m05s, 2h07m, 3d04h.
func formatSpan(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 0:
		s = 0
		fallthrough
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%dh%02dm", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%dd%02dh", s/86400, s%86400/3600)
}

// Bar glyphs: each job state has its own, so the bar reads without
// colour; colours (on a terminal, unless NO_COLOR) only underline it.
const (
	glyphCompleted = '#'
	glyphRemoved   = 'x'
	glyphRunning   = '='
	glyphHeld      = '!'
	glyphIdle      = '.'
)

// barSegment is a run of one glyph in a bar.
type barSegment struct {
	glyph rune
	n     int
}

// barSegments splits width cells among the states in bar order: done
// (completed, then removed), running, held, idle. Cell boundaries are the
// rounded cumulative shares, so the cells add up to width exactly and a
// bar is full only when every job is done.
func barSegments(c jobCounts, width int) []barSegment {
	if width <= 0 {
		return nil
	}
	if c.Total <= 0 {
		return []barSegment{{glyphIdle, width}}
	}
	parts := []barSegment{
		{glyphCompleted, c.Completed + c.Gone},
		{glyphRemoved, c.Removed},
		{glyphRunning, c.Running + c.Suspended},
		{glyphHeld, c.Held},
		{glyphIdle, c.Idle},
	}
	ends := make([]int, len(parts))
	cum := 0
	for i, p := range parts {
		cum += p.n
		ends[i] = (cum*width + c.Total/2) / c.Total
	}
	if c.done() < c.Total { // not full until every job is done
		ends[0], ends[1] = min(ends[0], width-1), min(ends[1], width-1)
	}
	last := 0 // the last state with jobs fills the bar
	for i, p := range parts {
		if p.n > 0 {
			last = i
		}
	}
	ends[last] = width
	var out []barSegment
	prev := 0
	for i, p := range parts {
		if p.n == 0 {
			continue
		}
		end := max(min(ends[i], width), prev)
		if end > prev {
			out = append(out, barSegment{p.glyph, end - prev})
		}
		prev = end
	}
	return out
}

// progressBar draws the segments, coloured when color is set.
func progressBar(segs []barSegment, color bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for _, s := range segs {
		code := glyphColors[s.glyph]
		if color && code != "" {
			b.WriteString("\x1b[" + code + "m")
		}
		b.WriteString(strings.Repeat(string(s.glyph), s.n))
		if color && code != "" {
			b.WriteString("\x1b[0m")
		}
	}
	b.WriteByte(']')
	return b.String()
}

// glyphColors are the ANSI colours of the bar's states.
var glyphColors = map[rune]string{
	glyphCompleted: "32", // green
	glyphRemoved:   "35", // magenta
	glyphRunning:   "36", // cyan
	glyphHeld:      "31", // red
}

// progressRow is one line of a progress view: a batch, or the total.
type progressRow struct {
	Name   string
	Counts jobCounts
	ETA    string
}

// progressLayout says how wide lines may be and how to draw bars.
type progressLayout struct {
	// Width is the line width to fit (a terminal's columns); 0 draws
	// bars of defaultBarWidth and never cuts lines.
	Width int
	Color bool
}

// Bar widths.
const (
	defaultBarWidth = 20
	minBarWidth     = 10
	maxBarWidth     = 40
)

// renderRows lays the rows out: names padded to one width, then the bar,
// the share done and the counts. The bar takes what the width leaves, so
// that lines do not wrap on a terminal (a wrapped line breaks redrawing).
func renderRows(rows []progressRow, l progressLayout) []string {
	nameW := 0
	for _, r := range rows {
		nameW = max(nameW, len(r.Name))
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		prefix := fmt.Sprintf("%-*s ", nameW, r.Name)
		suffix := fmt.Sprintf(" %3d%%  %s  ETA %s", r.Counts.percent(), countsText(r.Counts), r.ETA)
		barW := defaultBarWidth
		if l.Width > 0 {
			barW = min(max(l.Width-1-len(prefix)-len(suffix)-2, minBarWidth), maxBarWidth)
		}
		line := prefix + progressBar(barSegments(r.Counts, barW), l.Color) + suffix
		if l.Width > 0 {
			line = cutLine(line, len(prefix)+barW+2, l.Width-1, len(line)-len(suffix))
		}
		out[i] = line
	}
	return out
}

// cutLine cuts a line that is wider than width when shown (visible
// characters; the colour codes of the bar take none). The bar ends at
// byte barEnd of the line and shows as barCells characters.
func cutLine(line string, barCells, width, barEnd int) string {
	rest := line[barEnd:]
	if barCells+len(rest) <= width {
		return line
	}
	keep := max(width-barCells, 0)
	return line[:barEnd] + rest[:keep]
}

// countsText is the counts of a line: done of total, then each state
// that has jobs (idle and running always, so columns stay put).
func countsText(c jobCounts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d/%d done  %d run  %d idle", c.done(), c.Total, c.Running, c.Idle)
	if c.Held > 0 {
		fmt.Fprintf(&b, "  %d held", c.Held)
	}
	if c.Suspended > 0 {
		fmt.Fprintf(&b, "  %d susp", c.Suspended)
	}
	if c.Removed > 0 {
		fmt.Fprintf(&b, "  %d removed", c.Removed)
	}
	return b.String()
}

// summaryLine is the sentence printed when a watch ends.
func summaryLine(c jobCounts, elapsed time.Duration) string {
	var b strings.Builder
	if c.remaining() == 0 {
		fmt.Fprintf(&b, "All %d job(s) left the queue: %d completed", c.Total, c.Completed)
	} else {
		fmt.Fprintf(&b, "%d of %d job(s) left the queue: %d completed", c.done(), c.Total, c.Completed)
	}
	if c.Failed > 0 {
		fmt.Fprintf(&b, " (%d exited non-zero)", c.Failed)
	}
	fmt.Fprintf(&b, ", %d removed", c.Removed)
	if c.Gone > 0 {
		fmt.Fprintf(&b, ", %d not in the history", c.Gone)
	}
	if r := c.remaining(); r > 0 {
		fmt.Fprintf(&b, "; %d still queued (%d idle, %d running, %d held)", r, c.Idle, c.Running+c.Suspended, c.Held)
	}
	fmt.Fprintf(&b, "; %s elapsed.", formatSpan(elapsed))
	return b.String()
}
