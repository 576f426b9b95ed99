package sim

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strconv"
)

// WritePlot draws the report as SVG: for each setup and policy (the first
// seed's run), the running jobs of each type over time, as JoSchKa's
// figures show them, and the work each host completed, whose spread is
// the load imbalance M.
func WritePlot(w io.Writer, rep *Report) error {
	const (
		panelW, panelH = 560, 420
		cols           = 2
	)
	panels := firstSeedRuns(rep)
	rows := (len(panels) + cols - 1) / cols
	width, height := cols*panelW, rows*panelH+40
	if len(panels) == 1 {
		width = panelW
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		width, height, width, height)
	fmt.Fprintf(b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(b, `<text x="12" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", esc("kite sim: "+rep.Scenario))
	for k, r := range panels {
		x, y := float64((k%cols)*panelW), float64(40+(k/cols)*panelH)
		panel(b, r, rep.Unit, x, y, panelW, panelH)
	}
	fmt.Fprintln(b, "</svg>")
	return b.Flush()
}

// firstSeedRuns picks, for each setup and policy, its first seed's run.
func firstSeedRuns(rep *Report) []*RunResult {
	n := len(rep.Seeds)
	if n == 0 {
		n = 1
	}
	var out []*RunResult
	for k := 0; k < len(rep.Runs); k += n {
		out = append(out, rep.Runs[k])
	}
	return out
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"}

func panel(b *bufio.Writer, r *RunResult, unit string, x, y, w, h float64) {
	title := r.Policy + " (" + r.Dispatch + ")"
	if r.Setup != "" {
		title = r.Setup + " · " + title
	}
	fmt.Fprintf(b, `<g transform="translate(%g,%g)">`+"\n", x, y)
	fmt.Fprintf(b, `<text x="12" y="14" font-size="13" font-weight="bold">%s</text>`+"\n", esc(title))
	runningChart(b, &r.Series, unit, 56, 30, w-76, h*0.5)
	hostBars(b, r, 56, 30+h*0.5+48, w-76, h*0.5-100)
	fmt.Fprintln(b, "</g>")
}

// runningChart draws the running jobs per type over time.
func runningChart(b *bufio.Writer, s *Series, unit string, x, y, w, h float64) {
	u := unitSeconds(unit)
	tmax, ymax := 0.0, 1.0
	for i, t := range s.Times {
		tmax = math.Max(tmax, t/u)
		for k := range s.Running {
			ymax = math.Max(ymax, float64(s.Running[k][i]))
		}
	}
	if tmax == 0 {
		tmax = 1
	}
	xt, yt := ticks(tmax), ticks(ymax)
	tmax, ymax = math.Max(tmax, xt[len(xt)-1]), math.Max(ymax, yt[len(yt)-1])
	axes(b, x, y, w, h, xt, yt, tmax, ymax, "time ("+unit+")", "running jobs")
	for k := range s.Running {
		color := palette[k%len(palette)]
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, color)
		for i, t := range s.Times {
			fmt.Fprintf(b, "%.1f,%.1f ", x+w*t/u/tmax, y+h-h*float64(s.Running[k][i])/ymax)
		}
		fmt.Fprintln(b, `"/>`)
		ly := y + 12 + float64(k)*13
		fmt.Fprintf(b, `<rect x="%g" y="%g" width="10" height="3" fill="%s"/><text x="%g" y="%g">%s</text>`+"\n",
			x+w-110, ly-4, color, x+w-96, ly, esc(s.Types[k]))
	}
}

// hostBars draws the work each host completed: bars for up to 128 hosts,
// beyond that the hosts' loads sorted, as a profile.
func hostBars(b *bufio.Writer, r *RunResult, x, y, w, h float64) {
	loads := make([]float64, len(r.Hosts))
	for i, host := range r.Hosts {
		loads[i] = host.Work
	}
	top := 1.0
	for _, l := range loads {
		top = math.Max(top, l)
	}
	yt := ticks(top)
	top = math.Max(top, yt[len(yt)-1])
	label := fmt.Sprintf("work done per host (M = %s%% of the mean)", num(r.All.ImbalancePct))
	axes(b, x, y, w, h, nil, yt, 0, top, "", "")
	fmt.Fprintf(b, `<text x="%g" y="%g">%s</text>`+"\n", x, y-6, esc(label))
	n := len(loads)
	if n == 0 {
		return
	}
	if n > 128 {
		slices.Sort(loads)
		slices.Reverse(loads)
		fmt.Fprintf(b, `<polygon fill="%s" points="%g,%g `, palette[0], x, y+h)
		for i, l := range loads {
			fmt.Fprintf(b, "%.1f,%.1f ", x+w*float64(i)/float64(n-1), y+h-h*l/top)
		}
		fmt.Fprintf(b, `%g,%g"/>`+"\n", x+w, y+h)
		fmt.Fprintf(b, `<text x="%g" y="%g">%d hosts, most loaded first</text>`+"\n", x+w/2-50, y+h+14, n)
		return
	}
	bw := w / float64(n)
	for i, l := range loads {
		bh := h * l / top
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s: %s</title></rect>`+"\n",
			x+float64(i)*bw+bw*0.1, y+h-bh, bw*0.8, bh, palette[0], esc(r.Hosts[i].Name), num(l))
	}
	fmt.Fprintf(b, `<text x="%g" y="%g">hosts (%d)</text>`+"\n", x+w/2-20, y+h+14, n)
}

// axes draws a frame with ticks; xt nil draws no x ticks.
func axes(b *bufio.Writer, x, y, w, h float64, xt, yt []float64, xmax, ymax float64, xlabel, ylabel string) {
	fmt.Fprintf(b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#444"/>`+"\n", x, y, w, h)
	for _, v := range yt {
		py := y + h - h*v/ymax
		fmt.Fprintf(b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/><text x="%g" y="%.1f" text-anchor="end">%s</text>`+"\n",
			x, py, x+w, py, x-4, py+4, tick(v))
	}
	for _, v := range xt {
		px := x + w*v/xmax
		fmt.Fprintf(b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#444"/><text x="%.1f" y="%g" text-anchor="middle">%s</text>`+"\n",
			px, y+h, px, y+h+4, px, y+h+16, tick(v))
	}
	if xlabel != "" {
		fmt.Fprintf(b, `<text x="%g" y="%g" text-anchor="middle">%s</text>`+"\n", x+w/2, y+h+30, esc(xlabel))
	}
	if ylabel != "" {
		fmt.Fprintf(b, `<text transform="translate(%g,%g) rotate(-90)" text-anchor="middle">%s</text>`+"\n", x-42, y+h/2, esc(ylabel))
	}
}

// ticks returns about five round tick values from 0 covering max.
func ticks(max float64) []float64 {
	if !(max > 0) {
		return []float64{0, 1}
	}
	raw := max / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw {
			step = f * mag
			break
		}
	}
	var out []float64
	for v := 0.0; ; v += step {
		out = append(out, v)
		if v >= max {
			break
		}
	}
	return out
}

// tick labels an axis value shortly: 2.5, 40, 25k, 8M.
func tick(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 4, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 4, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func esc(s string) string { return html.EscapeString(s) }
