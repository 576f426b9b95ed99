package cli

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// display shows a progress view on a terminal or on a plain stream. On a
// terminal the view is redrawn in place (cursor up, each line rewritten
// and cleared to its end, in one write: no flicker). Elsewhere (a log, a
// pipe, a test) a row is printed only when its counts change, so the
// output is stable and short.
type display struct {
	w     io.Writer
	tty   bool
	color bool
	width func() int // the terminal's columns, 0 if unknown

	drawn   int                  // lines of the view on the terminal
	last    []string             // the view's lines, drawn again after a println
	printed map[string]jobCounts // plain: the counts last printed per row
}

// redrawInterval is how often a terminal view is redrawn (the elapsed
// time and ETA move between polls).
const redrawInterval = 250 * time.Millisecond

// newDisplay makes a display for w: a terminal view when w is a terminal
// (or tty forces it), colours unless NO_COLOR is set or TERM is dumb.
func newDisplay(w io.Writer, tty bool) *display {
	d := &display{w: w, tty: tty, printed: map[string]jobCounts{}}
	if tty {
		d.color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		d.width = func() int { return termWidth(w) }
	}
	return d
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// termWidth is the terminal's width: $COLUMNS, else the terminal's own
// size, else 80.
func termWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n := ttyColumns(f); n > 0 {
			return n
		}
	}
	return 80
}

// show draws the view: rows, then a status line on a terminal only.
func (d *display) show(rows []progressRow, status string) error {
	if !d.tty {
		return d.printChanged(rows)
	}
	lines := renderRows(rows, progressLayout{Width: d.width(), Color: d.color})
	if status != "" {
		lines = append(lines, status)
	}
	var b strings.Builder
	d.up(&b)
	d.draw(&b, lines)
	_, err := io.WriteString(d.w, b.String())
	return err
}

// draw writes the view's lines where the cursor is.
func (d *display) draw(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString("\r" + l + "\x1b[K\n")
	}
	b.WriteString("\x1b[J") // lines of a longer view before
	d.drawn, d.last = len(lines), lines
}

// printChanged prints the rows whose counts changed since last printed.
func (d *display) printChanged(rows []progressRow) error {
	var changed []progressRow
	for _, r := range rows {
		if last, ok := d.printed[r.Name]; ok && last == r.Counts {
			continue
		}
		d.printed[r.Name] = r.Counts
		changed = append(changed, r)
	}
	if len(changed) == 0 {
		return nil
	}
	// Lay the changed rows out with all the rows, so names line up.
	lines := renderRows(rows, progressLayout{})
	var b strings.Builder
	for i, r := range rows {
		for _, c := range changed {
			if c.Name == r.Name {
				b.WriteString(lines[i] + "\n")
				break
			}
		}
	}
	_, err := io.WriteString(d.w, b.String())
	return err
}

// release leaves the view where it is: what is printed next goes below
// it.
func (d *display) release() { d.drawn, d.last = 0, nil }

// up moves the cursor to the view's first line.
func (d *display) up(b *strings.Builder) {
	if d.drawn > 0 {
		b.WriteString("\r\x1b[" + strconv.Itoa(d.drawn) + "A")
	}
}

// println prints a line above the view (an event, a message); on a
// terminal the view is drawn again below it, in the same write.
func (d *display) println(s string) error {
	var b strings.Builder
	if !d.tty {
		b.WriteString(strings.TrimSuffix(s, "\n") + "\n")
	} else {
		d.up(&b)
		b.WriteString("\r\x1b[J" + strings.TrimSuffix(s, "\n") + "\n")
		d.draw(&b, d.last)
	}
	_, err := io.WriteString(d.w, b.String())
	return err
}
