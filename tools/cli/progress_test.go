package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/userlog"
)

var t0 = time.Unix(1790000000, 0)

func at(secs float64) time.Time { return t0.Add(time.Duration(secs * float64(time.Second))) }

// The rate is that of the latest completions, measured up to now: it
// falls while nothing completes, and it needs a completion and a second.
func TestThroughputETA(t *testing.T) {
	many := func(n int, every float64) []float64 {
		var out []float64
		for i := 1; i <= n; i++ {
			out = append(out, float64(i)*every)
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		start     float64 // -1: unknown
		ends      []float64
		now       float64
		remaining int
		want      string
	}{
		{"no completion yet", 0, nil, 100, 10, "--"},
		{"nothing left", 0, nil, 100, 0, "0s"},
		{"one in ten seconds", 0, []float64{10}, 10, 5, "50s"},
		{"the rate decays while nothing completes", 0, []float64{10}, 20, 5, "1m40s"},
		{"from the first completion when the start is unknown", -1, []float64{10, 20, 30}, 30, 4, "40s"},
		{"one completion and no start is not enough", -1, []float64{10}, 30, 4, "--"},
		{"under a second is not enough", -1, []float64{10, 10.5}, 10.5, 4, "--"},
		{"ten slots of one-minute jobs", 0, []float64{60, 60, 60, 60, 60, 60, 60, 60, 60, 60}, 61, 90, "9m09s"},
		// 40 completions, one a second, then one 10 s later: the window
		// holds the last 20 only (20 in the 29 s since the 21st latest).
		{"the last rateSpan completions", 0, append(many(40, 1), 50), 50, 20, "29s"},
		{"completions out of order", 0, []float64{30, 10, 20}, 30, 3, "30s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var tp throughput
			if tt.start >= 0 {
				tp.since(at(tt.start))
			}
			for _, e := range tt.ends {
				tp.add(at(e))
			}
			d, ok := tp.eta(tt.remaining, at(tt.now))
			got := "--"
			if ok {
				got = formatSpan(d)
			}
			if got != tt.want {
				t.Errorf("ETA = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFormatSpan(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"}, {0, "0s"}, {1499 * time.Millisecond, "1s"}, {59 * time.Second, "59s"},
		{65 * time.Second, "1m05s"}, {time.Hour + 7*time.Minute + 30*time.Second, "1h07m"},
		{50 * time.Hour, "2d02h"},
	} {
		if got := formatSpan(tt.d); got != tt.want {
			t.Errorf("formatSpan(%v) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

// A bar gives each state its share of cells, adds up to its width, and
// is full only when every job is done.
func TestProgressBar(t *testing.T) {
	for _, tt := range []struct {
		name  string
		c     jobCounts
		width int
		want  string
	}{
		{"nothing known", jobCounts{}, 10, "[..........]"},
		{"all idle", jobCounts{Total: 4, Idle: 4}, 8, "[........]"},
		{"each state", jobCounts{Total: 10, Completed: 3, Removed: 1, Running: 2, Held: 1, Idle: 3}, 10, "[###x==!...]"},
		{"gone counts as done", jobCounts{Total: 2, Completed: 1, Gone: 1}, 4, "[####]"},
		{"suspended shows as running", jobCounts{Total: 2, Suspended: 1, Idle: 1}, 4, "[==..]"},
		{"not full before the end", jobCounts{Total: 1000, Completed: 999, Idle: 1}, 20, "[###################.]"},
		{"full at the end", jobCounts{Total: 3, Completed: 2, Removed: 1}, 20, "[#############xxxxxxx]"},
		{"rounding adds up", jobCounts{Total: 3, Completed: 1, Running: 1, Idle: 1}, 10, "[###====...]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := progressBar(barSegments(tt.c, tt.width), false)
			if got != tt.want {
				t.Errorf("bar = %s, want %s", got, tt.want)
			}
		})
	}
	colored := progressBar(barSegments(jobCounts{Total: 2, Completed: 1, Idle: 1}, 2), true)
	if colored != "[\x1b[32m#\x1b[0m.]" {
		t.Errorf("coloured bar = %q", colored)
	}
}

// Rows line up by name; on a terminal the bar takes what the width
// leaves, and a line never wraps.
func TestRenderRows(t *testing.T) {
	rows := []progressRow{
		{Name: "ID: 7", Counts: jobCounts{Total: 4, Completed: 1, Running: 2, Idle: 1}, ETA: "30s"},
		{Name: "nightly", Counts: jobCounts{Total: 2, Held: 1, Removed: 1}, ETA: "--"},
	}
	got := renderRows(rows, progressLayout{})
	want := []string{
		"ID: 7   [#####==========.....]  25%  1/4 done  2 run  1 idle  ETA 30s",
		"nightly [xxxxxxxxxx!!!!!!!!!!]  50%  1/2 done  0 run  0 idle  1 held  1 removed  ETA --",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plain:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, width := range []int{40, 80, 100, 200} {
		for i, l := range renderRows(rows, progressLayout{Width: width}) {
			if len(l) > width-1 {
				t.Errorf("width %d: line %d is %d long: %q", width, i, len(l), l)
			}
		}
	}
	wide := renderRows(rows[:1], progressLayout{Width: 200})[0]
	if !strings.Contains(wide, "["+strings.Repeat("#", 10)+strings.Repeat("=", 20)+strings.Repeat(".", 10)+"]") {
		t.Errorf("a wide terminal gets a bar of %d cells: %q", maxBarWidth, wide)
	}
	colored := renderRows(rows[:1], progressLayout{Width: 70, Color: true})[0]
	if !strings.Contains(colored, "\x1b[32m") || !strings.HasSuffix(colored, "ETA 30s") {
		t.Errorf("coloured row: %q", colored)
	}
}

func TestSummaryLine(t *testing.T) {
	for _, tt := range []struct {
		c    jobCounts
		want string
	}{
		{jobCounts{Total: 3, Completed: 3}, "All 3 job(s) left the queue: 3 completed, 0 removed; 1m05s elapsed."},
		{jobCounts{Total: 4, Completed: 2, Failed: 1, Removed: 1, Gone: 1},
			"All 4 job(s) left the queue: 2 completed (1 exited non-zero), 1 removed, 1 not in the history; 1m05s elapsed."},
		{jobCounts{Total: 5, Completed: 1, Idle: 1, Running: 1, Suspended: 1, Held: 1},
			"1 of 5 job(s) left the queue: 1 completed, 0 removed; 4 still queued (1 idle, 2 running, 1 held); 1m05s elapsed."},
	} {
		if got := summaryLine(tt.c, 65*time.Second); got != tt.want {
			t.Errorf("summary:\n%s\nwant\n%s", got, tt.want)
		}
	}
}

// Off a terminal a row is printed when its counts change; on one the
// view is redrawn in place, and a message goes above it.
func TestDisplay(t *testing.T) {
	var b strings.Builder
	d := newDisplay(&b, false)
	r := progressRow{Name: "ID: 1", Counts: jobCounts{Total: 2, Idle: 2}, ETA: "--"}
	d.show([]progressRow{r}, "status")
	r.ETA = "5s" // the ETA alone is no change
	d.show([]progressRow{r}, "status")
	r.Counts = jobCounts{Total: 2, Completed: 1, Running: 1}
	d.show([]progressRow{r}, "status")
	d.println("done")
	want := "ID: 1 [....................]   0%  0/2 done  0 run  2 idle  ETA --\n" +
		"ID: 1 [##########==========]  50%  1/2 done  1 run  0 idle  ETA 5s\n" +
		"done\n"
	if b.String() != want {
		t.Errorf("plain:\n%q\nwant\n%q", b.String(), want)
	}

	b.Reset()
	t.Setenv("COLUMNS", "60")
	t.Setenv("NO_COLOR", "1")
	d = newDisplay(&b, true)
	d.show([]progressRow{r}, "status")
	d.show([]progressRow{r}, "status 2")
	d.println("event")
	d.release()
	d.println("summary")
	out := b.String()
	for _, w := range []string{"\r\x1b[2A", "\rstatus 2\x1b[K\n", "\r\x1b[2A\r\x1b[Jevent\n\rID: 1 ", "\x1b[J" + "summary\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("terminal output lacks %q:\n%q", w, out)
		}
	}
	if strings.Contains(out, "\x1b[3") {
		t.Errorf("NO_COLOR still coloured: %q", out)
	}
}

// The event log moves each job through its states; terminations give
// the rate with their own times.
func TestLogProgress(t *testing.T) {
	ev := func(code userlog.Code, c, p int64, secs float64) *userlog.Event {
		return &userlog.Event{Code: code, Job: userlog.JobID{Cluster: c, Proc: p}, Time: at(secs), Normal: true}
	}
	lp := newLogProgress()
	for _, e := range []*userlog.Event{
		ev(userlog.Submit, 2, 0, 0), ev(userlog.Submit, 2, 1, 0), ev(userlog.Submit, 2, 2, 0), ev(userlog.Submit, 2, 3, 0),
		ev(userlog.Submit, 1, 0, 0),
		ev(userlog.Execute, 2, 0, 1), ev(userlog.Terminated, 2, 0, 10),
		ev(userlog.Execute, 2, 1, 1), ev(userlog.Held, 2, 1, 5),
		ev(userlog.Aborted, 2, 2, 6), ev(userlog.Execute, 2, 2, 7), // nothing follows an end
		ev(userlog.Execute, 1, 0, 2), ev(userlog.Generic, 1, 0, 3),
	} {
		lp.event(e)
	}
	failed := ev(userlog.Terminated, 2, 3, 10)
	failed.ReturnCode = 2
	lp.event(failed)
	rows := lp.rows(at(20))
	got := renderRows(rows, progressLayout{})
	want := []string{
		"ID: 1 [====================]   0%  0/1 done  1 run  0 idle  ETA --",
		"ID: 2 [##########xxxxx!!!!!]  75%  3/4 done  0 run  0 idle  1 held  1 removed  ETA 10s",
		"Total [########xxxx====!!!!]  60%  3/5 done  1 run  0 idle  1 held  1 removed  ETA 20s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rows[1].Counts.Failed != 1 {
		t.Errorf("failed = %d, want 1", rows[1].Counts.Failed)
	}
}

func TestWaitFlag(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"forever", 0, false}, {"90", 90 * time.Second, false}, {"10m", 10 * time.Minute, false},
		{"soon", 0, true}, {"-5m", 0, true},
	} {
		var f waitFlag
		err := f.Set(tt.in)
		if (err != nil) != tt.wantErr || err == nil && (!f.on || f.timeout != tt.want) {
			t.Errorf("Set(%q) = %v, %+v; want %v", tt.in, err, f, tt.want)
		}
	}
}

// kite submit --wait succeeds only when every job completed with 0.
func TestWaitVerdict(t *testing.T) {
	for _, tt := range []struct {
		end  watchEnd
		c    jobCounts
		want string
	}{
		{endDone, jobCounts{Total: 2, Completed: 2}, ""},
		{endDone, jobCounts{Total: 2, Completed: 1, Gone: 1}, ""},
		{endDone, jobCounts{Total: 3, Completed: 2, Failed: 1, Removed: 1}, "1 job(s) exited non-zero, 1 job(s) removed"},
		{endStuck, jobCounts{Total: 2, Completed: 1, Held: 1}, "every job left in the queue is held (1)"},
		{endTimeout, jobCounts{Total: 2, Idle: 2}, "Time expired."},
		{endInterrupted, jobCounts{Total: 2, Idle: 2}, "interrupted: 2 job(s) still queued"},
	} {
		err := waitVerdict(tt.end, tt.c)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
			t.Errorf("verdict(%v, %+v) = %q, want %q", tt.end, tt.c, got, tt.want)
		}
	}
}
