package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/sita"
	"github.com/kite-sched/kite/internal/sitatune"
	"github.com/kite-sched/kite/internal/wire"
)

func init() { addCommand(func(g *globals) *cobra.Command { return newSitaCmd(g) }) }

func newSitaCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "sita",
		Short: "SITA-E: fit job sizes, plan size intervals, write host configs, show loads",
		Long: `SITA-E assigns each host (or group of hosts) one interval of job sizes,
the intervals chosen so that each carries the same expected load when sizes
follow a bounded Pareto distribution B(k, p, a) (paper 003).

  kite sita fit FILE | --queue        k, p, a by the method of moments and by
                                      maximum likelihood, side by side
  kite sita plan -n N --k --p --a     interval boundaries and expected loads;
  kite sita plan -n N --from FILE     with a size set, its actual loads and M
  kite sita config -n N ...           the [startd.sita] block for each host
  kite sita loads -n N FILE|--queue   actual load per interval, as a bar chart
  kite sita tune -n N [--apply]       refit to the recent jobs; move the idle
                                      jobs' plan when the workload drifts

FILE holds sizes, one per line (the first field of each line; blank lines
and # comments skipped), or job ads as a JSON array (kite q -json); "-" reads
standard input. --attr names the size attribute of job ads (ImageSize).`,
	}
	c.AddCommand(newSitaFitCmd(g), newSitaPlanCmd(), newSitaConfigCmd(), newSitaLoadsCmd(g), newSitaTuneCmd(g))
	return c
}

// sizeSet is the sizes read from a file, and where each came from.
type sizeSet struct {
	name  string
	sizes []float64
	where []string      // "file:line" or "file: job 12.3", per size
	ads   []*classad.Ad // the job ads, when the file held ads
}

// readSizes reads a file of sizes or of job ads ("-": standard input).
func readSizes(stdin io.Reader, path, attr string) (*sizeSet, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
		path = "stdin"
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	set := &sizeSet{name: path}
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
		err = set.readAds(data, attr)
	} else {
		err = set.readLines(data)
	}
	if err == nil && len(set.sizes) == 0 {
		err = fmt.Errorf("%s: no sizes", path)
	}
	return set, err
}

// readLines reads one size per line: the line's first field.
func (s *sizeSet) readLines(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		f, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return fmt.Errorf("%s:%d: %q is not a number", s.name, n, fields[0])
		}
		s.sizes = append(s.sizes, f)
		s.where = append(s.where, fmt.Sprintf("%s:%d", s.name, n))
	}
	return sc.Err()
}

// readAds reads job ads in JSON (an array, or objects one after another)
// and takes each one's size attribute.
func (s *sizeSet) readAds(data []byte, attr string) error {
	d := classad.NewJSONDecoder(bytes.NewReader(data))
	for i := 1; ; i++ {
		ad, err := d.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: job ad %d: %w", s.name, i, err)
		}
		if err := s.addAd(ad, attr); err != nil {
			return err
		}
	}
}

// addAd adds a job ad's size.
func (s *sizeSet) addAd(ad *classad.Ad, attr string) error {
	id := jobLabel(ad, len(s.ads)+1)
	v, _ := classad.EvalAttr(ad, attr, nil)
	f, ok := v.NumberValue()
	if !ok {
		return fmt.Errorf("%s: %s has %s = %s, not a number", s.name, id, attr, v)
	}
	s.sizes = append(s.sizes, f)
	s.where = append(s.where, s.name+": "+id)
	s.ads = append(s.ads, ad)
	return nil
}

// jobLabel names the i-th ad of a file: "job 12.3", or "ad 7" without ids.
func jobLabel(ad *classad.Ad, i int) string {
	c, _ := classad.EvalAttr(ad, "ClusterId", nil)
	p, _ := classad.EvalAttr(ad, "ProcId", nil)
	if c.IsNumber() && p.IsNumber() {
		return "job " + c.String() + "." + p.String()
	}
	return fmt.Sprintf("ad %d", i)
}

// queueFlags read sizes from the live queue instead of a file.
type queueFlags struct {
	g          *globals
	queue      bool
	name       string
	constraint []string
}

func (qf *queueFlags) register(c *cobra.Command, what string) {
	f := c.Flags()
	f.BoolVar(&qf.queue, "queue", false, what)
	f.StringVar(&qf.name, "name", "", "with --queue, the schedd to ask (its name or host:port)")
	f.StringArrayVar(&qf.constraint, "constraint", nil, "with --queue, only jobs for which the expression is true")
}

// args checks the arguments: FILE, or with --queue job ids and owners.
func (qf *queueFlags) args(c *cobra.Command, args []string) error {
	if qf.queue {
		return nil
	}
	if len(qf.constraint) > 0 || qf.name != "" {
		return usageError{errors.New("--name and --constraint go with --queue")}
	}
	if len(args) != 1 {
		return usageError{fmt.Errorf("%s takes one FILE (or --queue), got %d arguments", c.Name(), len(args))}
	}
	return nil
}

// read reads the jobs the arguments select from the schedd's queue, and
// with history those that left it.
func (qf *queueFlags) read(ctx context.Context, args []string, sizeAttr string, history bool) (*sizeSet, error) {
	s, err := qf.g.findSchedd(ctx, qf.name)
	if err != nil {
		return nil, err
	}
	ids, owners := splitArgs(args)
	var parts []string
	for _, c := range qf.constraint {
		parts = append(parts, "("+c+")")
	}
	constraint := strings.Join(parts, " && ")
	proj := []string{"ClusterId", "ProcId", sizeAttr, sita.JobMinSize, sita.JobMaxSize, sita.JobVariability, "RemoteHost", "LastRemoteHost"}
	set := &sizeSet{name: "the queue of " + s.name}
	add := func(ad *classad.Ad) error { return set.addAd(ad, sizeAttr) }
	q := wire.JobQuery{JobSelection: wire.JobSelection{IDs: ids, Owners: owners, Constraint: constraint}, Projection: proj}
	if err := streamAds(ctx, s.client, wire.PathQueue, q, add); err != nil {
		return nil, err
	}
	if history {
		set.name = "the queue and history of " + s.name
		h := wire.HistoryQuery{IDs: ids, Owners: owners, Constraint: constraint, Projection: proj}
		if err := streamAds(ctx, s.client, wire.PathHistory, h, add); err != nil {
			return nil, err
		}
	}
	if len(set.sizes) == 0 {
		return nil, fmt.Errorf("%s: no jobs", set.name)
	}
	return set, nil
}

// fit fits the sizes, placing a bad size in its file.
func (s *sizeSet) fit(method string) (sita.Fit, error) {
	f, err := sita.FitSizes(method, s.sizes)
	var se *sita.SizeError
	if errors.As(err, &se) {
		return f, fmt.Errorf("%s: size %g: sizes must be positive numbers", s.where[se.Index], se.Value)
	}
	if err != nil {
		return f, fmt.Errorf("%s: %s: %w", s.name, method, err)
	}
	return f, nil
}

// paramFlags are --k --p --a, or --from FILE with --fit.
type paramFlags struct {
	k, p, a float64
	from    string
	method  string
	attr    string
}

func (pf *paramFlags) register(c *cobra.Command, from bool) {
	f := c.Flags()
	f.Float64VarP(&pf.k, "k", "k", 0, "smallest job size of B(k, p, a)")
	f.Float64VarP(&pf.p, "p", "p", 0, "largest job size of B(k, p, a)")
	f.Float64VarP(&pf.a, "a", "a", 0, "variability a of B(k, p, a)")
	if from {
		f.StringVar(&pf.from, "from", "", "fit k, p, a to the sizes in FILE (and, for plan, show their loads)")
	}
	f.StringVar(&pf.method, "fit", sita.Moments, "estimator for sizes: moments or mle")
	f.StringVar(&pf.attr, "attr", sita.DefaultSizeAttr, "the size attribute of job ads")
}

// given reports whether any of --k --p --a is set.
func (pf *paramFlags) given() bool { return pf.k != 0 || pf.p != 0 || pf.a != 0 }

// flagsDist checks --k --p --a.
func (pf *paramFlags) flagsDist() (sita.Pareto, error) {
	d, err := sita.New(pf.k, pf.p, pf.a)
	if err != nil {
		return d, usageError{fmt.Errorf("--k --p --a: %w", err)}
	}
	return d, nil
}

// dist returns the distribution the flags give: --k --p --a, else the fit
// of --from's sizes (with its description and warning, for the header).
func (pf *paramFlags) dist(set *sizeSet) (d sita.Pareto, how string, err error) {
	if pf.given() {
		d, err = pf.flagsDist()
		return d, "given", err
	}
	if set == nil {
		return d, "", usageError{errors.New("give --k, --p and --a, or --from FILE")}
	}
	f, err := set.fit(pf.method)
	if err != nil {
		return d, "", err
	}
	how = fmt.Sprintf("fitted by %s to %d sizes from %s", f.Method, f.N, set.name)
	if f.Warning != "" {
		how += "\nwarning: " + f.Warning
	}
	return f.Pareto, how, nil
}

// checkN checks -n.
func checkN(n int) error {
	if n < 1 || n > sita.MaxIntervals {
		return usageError{fmt.Errorf("-n %d: the number of intervals must be between 1 and %d", n, sita.MaxIntervals)}
	}
	return nil
}

// ---- fit ----

type sitaFitOptions struct {
	attr string
	json bool
	qf   queueFlags
}

func newSitaFitCmd(g *globals) *cobra.Command {
	o := sitaFitOptions{qf: queueFlags{g: g}}
	c := &cobra.Command{
		Use:   "fit FILE | --queue [owner | cluster | cluster.proc ...]",
		Short: "Fit B(k, p, a) to job sizes by the method of moments and by maximum likelihood",
		Long: `Fit a bounded Pareto B(k, p, a) to the sizes in FILE with both estimators:
k is the smallest size and p the largest; a comes from the method of moments
(the mean, as paper 003) and from maximum likelihood. LogLik (higher is
better) and KS (the Kolmogorov-Smirnov distance, lower is better) say how
well each fits. Fewer than 1000 sizes give a warning: the fit is unreliable.

With --queue the sizes are those of the jobs in the schedd's queue that the
arguments (owners, clusters, jobs) and --constraint select.`,
		Args: func(c *cobra.Command, args []string) error { return o.qf.args(c, args) },
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args) },
	}
	c.Flags().StringVar(&o.attr, "attr", sita.DefaultSizeAttr, "the size attribute of job ads")
	c.Flags().BoolVar(&o.json, "json", false, "print the fits as JSON")
	o.qf.register(c, "fit the sizes of the jobs in the queue")
	return c
}

func (o *sitaFitOptions) run(c *cobra.Command, args []string) error {
	var set *sizeSet
	var err error
	if o.qf.queue {
		set, err = o.qf.read(c.Context(), args, o.attr, false)
	} else {
		set, err = readSizes(c.InOrStdin(), args[0], o.attr)
	}
	if err != nil {
		return err
	}
	fits := make([]sita.Fit, 0, len(sita.Methods))
	errs := make([]error, 0, len(sita.Methods))
	for _, m := range sita.Methods {
		f, err := set.fit(m)
		fits, errs = append(fits, f), append(errs, err)
	}
	if errs[0] != nil && errs[1] != nil {
		return errors.Join(errs...)
	}
	w := c.OutOrStdout()
	if o.json {
		return printFitsJSON(w, fits, errs)
	}
	return printFits(w, set, fits, errs)
}

func printFits(w io.Writer, set *sizeSet, fits []sita.Fit, errs []error) error {
	lo, hi, mean := math.Inf(1), math.Inf(-1), 0.0
	for _, s := range set.sizes {
		lo, hi, mean = min(lo, s), max(hi, s), mean+s/float64(len(set.sizes))
	}
	fmt.Fprintf(w, "%d sizes from %s: %s to %s, mean %s\n", len(set.sizes), set.name, num(lo), num(hi), num(mean))
	for i, f := range fits {
		if errs[i] == nil && f.Warning != "" {
			fmt.Fprintf(w, "warning: %s\n", f.Warning)
			break
		}
	}
	fmt.Fprintln(w)
	t := &table{headers: []string{"Method", "k", "p", "a", "E(X)", "LogLik", "KS"}, right: []bool{false, true, true, true, true, true, true}}
	for i, f := range fits {
		if errs[i] != nil {
			t.add(sita.Methods[i], "-", "-", "-", "-", "-", "-")
			continue
		}
		t.add(f.Method, num(f.K), num(f.P), fmt.Sprintf("%.6g", f.A), fmt.Sprintf("%.6g", f.Pareto.Mean()),
			fmt.Sprintf("%.1f", f.LogLik), fmt.Sprintf("%.4f", f.KS))
	}
	if err := t.write(w); err != nil {
		return err
	}
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(w, "\n%s: %v\n", sita.Methods[i], err)
		}
	}
	return nil
}

// fitJSON is one estimator's result in --json output.
type fitJSON struct {
	Method  string  `json:"method"`
	K       float64 `json:"k,omitempty"`
	P       float64 `json:"p,omitempty"`
	A       float64 `json:"a,omitempty"`
	N       int     `json:"n,omitempty"`
	Mean    float64 `json:"mean,omitempty"`
	LogLik  float64 `json:"loglik,omitempty"`
	KS      float64 `json:"ks,omitempty"`
	Warning string  `json:"warning,omitempty"`
	Error   string  `json:"error,omitempty"`
}

func printFitsJSON(w io.Writer, fits []sita.Fit, errs []error) error {
	out := make([]fitJSON, len(fits))
	for i, f := range fits {
		if errs[i] != nil {
			out[i] = fitJSON{Method: sita.Methods[i], Error: errs[i].Error()}
			continue
		}
		out[i] = fitJSON{Method: f.Method, K: f.K, P: f.P, A: round10(f.A), N: f.N, Mean: round10(f.Mean),
			LogLik: round10(f.LogLik), KS: round10(f.KS), Warning: f.Warning}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// round10 rounds to 10 significant digits: what the estimates are worth,
// and the same on every platform.
func round10(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
	return r
}

// num prints a size: whole numbers in full, others with six digits.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

// bound prints an interval boundary with two decimals, as paper 003 does.
func bound(x float64) string {
	if math.Abs(x) >= 1e15 || math.Abs(x) < 0.01 {
		return strconv.FormatFloat(x, 'g', 8, 64)
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func load(x float64) string { return strconv.FormatFloat(x, 'e', 3, 64) }

func percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) + "%" }

// ---- plan ----

type sitaPlanOptions struct {
	n  int
	pf paramFlags
}

func newSitaPlanCmd() *cobra.Command {
	var o sitaPlanOptions
	c := &cobra.Command{
		Use:   "plan -n N [--k K --p P --a A | --from FILE]",
		Short: "Plan N size intervals of equal expected load",
		Long: `Print the boundaries of N size intervals that carry equal expected loads
under B(k, p, a), each interval's probability and expected share of the load.
The parameters are --k, --p and --a, or a fit (--fit moments or mle) of the
sizes in --from FILE. With --from, the sizes' actual loads per interval, the
expected loads for as many jobs, and the imbalance M are shown too.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return o.run(c) },
	}
	c.Flags().IntVarP(&o.n, "intervals", "n", 0, "number of intervals (hosts or host groups)")
	o.pf.register(c, true)
	c.MarkFlagRequired("intervals")
	return c
}

func (o *sitaPlanOptions) run(c *cobra.Command) error {
	if err := checkN(o.n); err != nil {
		return err
	}
	var set *sizeSet
	if o.pf.from != "" {
		var err error
		if set, err = readSizes(c.InOrStdin(), o.pf.from, o.pf.attr); err != nil {
			return err
		}
	}
	d, how, err := o.pf.dist(set)
	if err != nil {
		return err
	}
	iv, err := d.Boundaries(o.n)
	if err != nil {
		return err
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "B(k=%s, p=%s, a=%.6g), %s\n", num(d.K), num(d.P), d.A, how)
	fmt.Fprintf(w, "%d intervals of equal expected load; mean job size %s\n\n", o.n, num(d.Mean()))
	t, footer := planTable(d, iv, set)
	if err := t.write(w); err != nil {
		return err
	}
	if footer != "" {
		_, err = fmt.Fprintf(w, "\n%s\n", footer)
	}
	return err
}

// planTable is the plan: boundaries, probability and load share, and for a
// size set its jobs, actual and expected loads, and a line on M.
func planTable(d sita.Pareto, iv sita.Intervals, set *sizeSet) (*table, string) {
	t := &table{headers: []string{"Interval", "From", "To", "P(job)", "Load share"}, right: []bool{true, true, true, true, true}}
	loads, probs := d.ExpectedLoads(iv)
	mean := d.Mean()
	var actual []float64
	var counts []int
	if set != nil {
		actual, counts = iv.Loads(set.sizes)
		t.headers = append(t.headers, "Jobs", "Load", "Expected")
		t.right = append(t.right, true, true, true)
	}
	for i := 1; i <= iv.N(); i++ {
		row := []string{strconv.Itoa(i), bound(iv.Lower(i)), bound(iv.Upper(i)), percent(probs[i-1]), percent(loads[i-1] / mean)}
		if set != nil {
			m := float64(len(set.sizes))
			row = append(row, strconv.Itoa(counts[i-1]), load(actual[i-1]), load(m*loads[i-1]))
		}
		t.add(row...)
	}
	if set == nil {
		return t, ""
	}
	return t, fmt.Sprintf("%d jobs, total load %s; %s", len(set.sizes), load(sum(actual)), imbalanceLine(actual))
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// imbalanceLine describes M for actual loads.
func imbalanceLine(loads []float64) string {
	m, mean, pct := sita.Imbalance(loads)
	return fmt.Sprintf("mean load %s, M = %s (%.1f %% of the mean)", load(mean), load(m), pct)
}

// ---- config ----

type sitaConfigOptions struct {
	n      int
	pf     paramFlags
	hosts  []string
	table  bool
	source string
}

func newSitaConfigCmd() *cobra.Command {
	var o sitaConfigOptions
	c := &cobra.Command{
		Use:   "config -n N [--k K --p P --a A | --from FILE] [--hosts H1,H2,...] [--table]",
		Short: "Write the [startd.sita] configuration of each host",
		Long: `Write the [startd.sita] block each execute host needs to serve its share of
N size intervals. With --k, --p and --a (or --from FILE, fitted) the hosts
carry the parameters (source = "config", literal boundaries); without them,
each job brings its own (source = "job": sita_fit in the submit file).

With --hosts, the hosts are spread over the intervals in order, in groups
of equal size (8 hosts and 4 intervals: two hosts per interval); --table
writes one block with a [startd.sita.hosts] table that every host can share.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return o.run(c) },
	}
	c.Flags().IntVarP(&o.n, "intervals", "n", 0, "number of intervals")
	o.pf.register(c, true)
	c.Flags().StringSliceVar(&o.hosts, "hosts", nil, "host (or slot) names, comma-separated, spread over the intervals")
	c.Flags().BoolVar(&o.table, "table", false, "one shared block with a [startd.sita.hosts] table (needs --hosts)")
	c.Flags().StringVar(&o.source, "source", "", `where hosts find k, p, a: "job" or "config" (default: config when given or fitted)`)
	c.MarkFlagRequired("intervals")
	return c
}

func (o *sitaConfigOptions) run(c *cobra.Command) error {
	if err := checkN(o.n); err != nil {
		return err
	}
	hc, how, err := o.hostConfig(c.InOrStdin())
	if err != nil {
		return err
	}
	assign, err := spread(o.hosts, o.n)
	if err != nil {
		return err
	}
	if o.table && len(o.hosts) == 0 {
		return usageError{errors.New("--table needs --hosts")}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# SITA-E, %d intervals; %s\n", o.n, how)
	if o.table {
		writeSitaTable(&b, hc, o.hosts, assign)
	} else {
		writeSitaBlocks(&b, hc, o.hosts, assign)
	}
	_, err = io.WriteString(c.OutOrStdout(), b.String())
	return err
}

// hostConfig builds the shared part of every host's setting.
func (o *sitaConfigOptions) hostConfig(stdin io.Reader) (sita.HostConfig, string, error) {
	hc := sita.HostConfig{Attribute: o.pf.attr, Intervals: o.n, Source: o.source}
	var d sita.Pareto
	how := "each job brings k, p, a (sita_fit in its submit file)"
	if o.pf.given() || o.pf.from != "" {
		var set *sizeSet
		var err error
		if !o.pf.given() {
			if set, err = readSizes(stdin, o.pf.from, o.pf.attr); err != nil {
				return hc, "", err
			}
		}
		if d, how, err = o.pf.dist(set); err != nil {
			return hc, "", err
		}
		how = strings.ReplaceAll(fmt.Sprintf("B(k=%s, p=%s, a=%.6g) %s", num(d.K), num(d.P), d.A, how), "\n", "\n# ")
		hc.K, hc.P, hc.A = d.K, d.P, d.A
		if hc.Source == "" {
			hc.Source = sita.SourceConfig
		}
	}
	if hc.Source == "" {
		hc.Source = sita.SourceJob
	}
	hc.Interval = 1
	if err := hc.Validate(); err != nil {
		return hc, "", usageError{err}
	}
	return hc, how, nil
}

// spread assigns hosts to intervals 1..n in order, in groups of equal
// size; without hosts there is one block per interval.
func spread(hosts []string, n int) ([]int, error) {
	if len(hosts) == 0 {
		return nil, nil
	}
	if len(hosts) < n {
		return nil, usageError{fmt.Errorf("--hosts names %d hosts for %d intervals: each interval needs at least one", len(hosts), n)}
	}
	seen := map[string]bool{}
	out := make([]int, len(hosts))
	for j, h := range hosts {
		if h == "" || seen[strings.ToLower(h)] {
			return nil, usageError{fmt.Errorf("--hosts: %q is empty or named twice", h)}
		}
		seen[strings.ToLower(h)] = true
		out[j] = j*n/len(hosts) + 1
	}
	return out, nil
}

// writeSitaBlocks writes one [startd.sita] block per host (or interval).
func writeSitaBlocks(b *strings.Builder, hc sita.HostConfig, hosts []string, assign []int) {
	iv := planFor(hc)
	block := func(title string, i int) {
		fmt.Fprintf(b, "\n# %sinterval %d of %d%s\n[startd.sita]\n", title, i, hc.Intervals, rangeNote(iv, i))
		writeSitaKeys(b, hc, i)
	}
	if len(hosts) == 0 {
		for i := 1; i <= hc.Intervals; i++ {
			block("", i)
		}
		return
	}
	for j, h := range hosts {
		block(h+": ", assign[j])
	}
}

// writeSitaTable writes one block every host can share.
func writeSitaTable(b *strings.Builder, hc sita.HostConfig, hosts []string, assign []int) {
	iv := planFor(hc)
	b.WriteString("\n[startd.sita]\n")
	writeSitaKeys(b, hc, 0)
	b.WriteString("\n[startd.sita.hosts]\n")
	for j, h := range hosts {
		fmt.Fprintf(b, "%s = %d%s\n", strconv.Quote(h), assign[j], strings.Replace(rangeNote(iv, assign[j]), ",", "  #", 1))
	}
}

// writeSitaKeys writes the keys of [startd.sita]; interval 0 leaves the
// interval to the hosts table.
func writeSitaKeys(b *strings.Builder, hc sita.HostConfig, interval int) {
	fmt.Fprintf(b, "attribute = %s\nintervals = %d\ninterval = %d\nsource = %s\n",
		strconv.Quote(hc.Attribute), hc.Intervals, interval, strconv.Quote(hc.Source))
	if hc.K != 0 {
		fmt.Fprintf(b, "k = %s\np = %s\na = %s\n", sitatune.Real(hc.K), sitatune.Real(hc.P), sitatune.Real(hc.A)) // a ClassAd real literal is a TOML float too
	}
}

// planFor returns the boundaries when the hosts carry the parameters.
func planFor(hc sita.HostConfig) *sita.Intervals {
	if hc.Source != sita.SourceConfig {
		return nil
	}
	iv, err := sita.Pareto{K: hc.K, P: hc.P, A: hc.A}.Boundaries(hc.Intervals)
	if err != nil {
		return nil
	}
	return &iv
}

// rangeNote describes interval i's sizes, when known.
func rangeNote(iv *sita.Intervals, i int) string {
	if iv == nil {
		return ""
	}
	close := ")"
	if i == iv.N() {
		close = "]"
	}
	return fmt.Sprintf(", sizes [%s, %s%s", bound(iv.Lower(i)), bound(iv.Upper(i)), close)
}

// ---- loads ----

type sitaLoadsOptions struct {
	n      int
	pf     paramFlags
	width  int
	qf     queueFlags
	placed bool
	plan   bool
}

func newSitaLoadsCmd(g *globals) *cobra.Command {
	o := sitaLoadsOptions{qf: queueFlags{g: g}}
	c := &cobra.Command{
		Use:   "loads -n N [--k K --p P --a A] FILE | --queue [owner | cluster | cluster.proc ...]",
		Short: "Show the load per size interval as a bar chart",
		Long: `Sum the sizes of the jobs in FILE per size interval of N and draw the loads
as bars, with the imbalance M. Each job's interval follows from --k, --p
and --a when given, else from the job's own Min_size_of_job,
Max_size_of_job and Pareto_variability (as hosts with source = "job" place
it), else from a fit (--fit) of all the sizes.

With --queue the jobs are those in the schedd's queue and history that the
arguments (owners, clusters, jobs) and --constraint select: the load the
pool has had and has waiting. With --placed as well, each job that has run
counts in the interval of the slot it ran on (its RemoteHost, or
LastRemoteHost, and the slot's SitaInterval in the collector), and the jobs
that ran outside the interval their size predicts are counted.

With --plan, each interval's load is set against the plan's: SITA-E plans
intervals of equal expected load, so the plan gives each the mean load,
and "Off plan" is how far the interval's load is from it, in percent.`,
		Args: func(c *cobra.Command, args []string) error { return o.qf.args(c, args) },
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args) },
	}
	o.qf.register(c, "the jobs of the schedd's queue and history")
	c.Flags().BoolVar(&o.placed, "placed", false, "with --queue, count jobs where they ran, and compare with where their sizes predict")
	c.Flags().BoolVar(&o.plan, "plan", false, "set each interval's load against the plan's (equal loads)")
	c.Flags().IntVarP(&o.n, "intervals", "n", 0, "number of intervals")
	o.pf.register(c, false)
	c.Flags().IntVar(&o.width, "width", 50, "width of the longest bar, in characters")
	c.MarkFlagRequired("intervals")
	return c
}

func (o *sitaLoadsOptions) run(c *cobra.Command, args []string) error {
	if err := checkN(o.n); err != nil {
		return err
	}
	if o.width < 1 || o.width > 1000 {
		return usageError{fmt.Errorf("--width %d: must be between 1 and 1000", o.width)}
	}
	var set *sizeSet
	var err error
	if o.qf.queue {
		set, err = o.qf.read(c.Context(), args, o.pf.attr, true)
	} else {
		set, err = readSizes(c.InOrStdin(), args[0], o.pf.attr)
	}
	if err != nil {
		return err
	}
	place, how, err := o.placer(set)
	if err != nil {
		return err
	}
	if o.placed {
		if !o.qf.queue {
			return usageError{errors.New("--placed goes with --queue")}
		}
		return o.runPlaced(c, set, place, how)
	}
	loads, counts := make([]float64, o.n), make([]int, o.n)
	for j, s := range set.sizes {
		i, err := place(j)
		if err != nil {
			return err
		}
		loads[i-1] += s
		counts[i-1]++
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%d jobs from %s; intervals from %s\n\n", len(set.sizes), set.name, how)
	return writeLoads(w, loads, counts, o.width, o.plan)
}

// writeLoads writes the bar chart and M, and with plan each interval's
// load against the plan's.
func writeLoads(w io.Writer, loads []float64, counts []int, width int, plan bool) error {
	if err := loadBars(loads, counts, width, plan).write(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\ntotal load %s; %s\n", load(sum(loads)), imbalanceLine(loads))
	return err
}

// runPlaced counts each job in the interval of the slot it ran on.
func (o *sitaLoadsOptions) runPlaced(c *cobra.Command, set *sizeSet, predict func(int) (int, error), how string) error {
	slots, err := o.slotIntervals(c.Context())
	if err != nil {
		return err
	}
	loads, counts := make([]float64, o.n), make([]int, o.n)
	waiting, unknown, astray := 0, 0, 0
	for j, s := range set.sizes {
		host := str(set.ads[j], "RemoteHost")
		if host == "" {
			host = str(set.ads[j], "LastRemoteHost")
		}
		i, ok := slots[strings.ToLower(host)]
		switch {
		case host == "":
			waiting++
			continue
		case !ok || i < 1 || i > o.n:
			unknown++
			continue
		}
		loads[i-1] += s
		counts[i-1]++
		if want, err := predict(j); err != nil {
			return err
		} else if want != i {
			astray++
		}
	}
	w := c.OutOrStdout()
	fmt.Fprintf(w, "%d jobs from %s, counted where they ran; predictions from %s\n\n", len(set.sizes), set.name, how)
	if err := writeLoads(w, loads, counts, o.width, o.plan); err != nil {
		return err
	}
	ran := len(set.sizes) - waiting - unknown
	fmt.Fprintf(w, "%d of %d jobs that ran did so outside the interval their size predicts\n", astray, ran)
	if waiting > 0 {
		fmt.Fprintf(w, "%d jobs have not run yet\n", waiting)
	}
	if unknown > 0 {
		fmt.Fprintf(w, "%d jobs ran on slots with no SITA-E interval of %d in the collector\n", unknown, o.n)
	}
	return nil
}

// slotIntervals returns the collector's slots' SitaInterval by lower-cased
// slot name.
func (o *sitaLoadsOptions) slotIntervals(ctx context.Context) (map[string]int, error) {
	cfg, err := o.qf.g.loadConfig()
	if err != nil {
		return nil, err
	}
	conn, err := o.qf.g.connector(cfg)
	if err != nil {
		return nil, err
	}
	q := wire.Query{Type: attr.TypeSlot, Constraint: sita.AttrInterval + " isnt undefined",
		Projection: []string{attr.Name, sita.AttrInterval, sita.AttrIntervals}}
	ads, err := queryAds(ctx, conn.Collectors(cfg.Pool.CollectorAddrs()), q)
	if err != nil {
		return nil, fmt.Errorf("asking the collector for the slots' intervals: %w", err)
	}
	out := map[string]int{}
	for _, ad := range ads {
		if n := classad.EvalIntOr(ad, sita.AttrIntervals, 0); n != int64(o.n) {
			continue
		}
		out[strings.ToLower(str(ad, attr.Name))] = int(classad.EvalIntOr(ad, sita.AttrInterval, 0))
	}
	return out, nil
}

// placer returns how to find job j's interval, and says where the
// boundaries come from.
func (o *sitaLoadsOptions) placer(set *sizeSet) (func(j int) (int, error), string, error) {
	if o.pf.given() {
		d, err := o.pf.flagsDist()
		if err != nil {
			return nil, "", err
		}
		iv, err := d.Boundaries(o.n)
		return func(j int) (int, error) { return iv.Of(set.sizes[j]), nil },
			fmt.Sprintf("B(k=%s, p=%s, a=%.6g)", num(d.K), num(d.P), d.A), err
	}
	if own := jobParams(set.ads); own != nil {
		return o.ownPlacer(set, own)
	}
	d, how, err := o.pf.dist(set)
	if err != nil {
		return nil, "", err
	}
	iv, err := d.Boundaries(o.n)
	how = fmt.Sprintf("B(k=%s, p=%s, a=%.6g) %s", num(d.K), num(d.P), d.A, how)
	return func(j int) (int, error) { return iv.Of(set.sizes[j]), nil }, how, err
}

// ownPlacer places each job by its own parameters.
func (o *sitaLoadsOptions) ownPlacer(set *sizeSet, own []*sita.Pareto) (func(int) (int, error), string, error) {
	plans := map[sita.Pareto]sita.Intervals{}
	place := func(j int) (int, error) {
		if own[j] == nil {
			return 0, fmt.Errorf("%s lacks %s, %s or %s, which other jobs carry: give --k, --p and --a",
				set.where[j], sita.JobMinSize, sita.JobMaxSize, sita.JobVariability)
		}
		iv, ok := plans[*own[j]]
		if !ok {
			var err error
			if iv, err = own[j].Boundaries(o.n); err != nil {
				return 0, fmt.Errorf("%s: its parameters: %w", set.where[j], err)
			}
			plans[*own[j]] = iv
		}
		return iv.Of(set.sizes[j]), nil
	}
	return place, "the jobs' own parameters", nil
}

// jobParams returns each ad's own k, p, a (nil for an ad without them),
// or nil when no ad has them.
func jobParams(ads []*classad.Ad) []*sita.Pareto {
	var out []*sita.Pareto
	found := false
	for _, ad := range ads {
		var vals [3]float64
		ok := true
		for i, name := range []string{sita.JobMinSize, sita.JobMaxSize, sita.JobVariability} {
			v, _ := classad.EvalAttr(ad, name, nil)
			vals[i], ok = v.NumberValue()
			if !ok {
				break
			}
		}
		if !ok {
			out = append(out, nil)
			continue
		}
		found = true
		out = append(out, &sita.Pareto{K: vals[0], P: vals[1], A: vals[2]})
	}
	if !found {
		return nil
	}
	return out
}

// loadBars is the bar chart of loads; with plan, the plan's load (the
// mean: SITA-E's intervals carry equal expected loads) and how far each
// interval is off it.
func loadBars(loads []float64, counts []int, width int, plan bool) *table {
	t := &table{headers: []string{"Interval", "Jobs", "Load", "Relative load"}, right: []bool{true, true, true, false}}
	if plan {
		t.headers = []string{"Interval", "Jobs", "Load", "Plan", "Off plan", "Relative load"}
		t.right = []bool{true, true, true, true, true, false}
	}
	top := 0.0
	for _, l := range loads {
		top = max(top, l)
	}
	mean := sum(loads) / float64(max(len(loads), 1))
	for i, l := range loads {
		if !plan {
			t.add(strconv.Itoa(i+1), strconv.Itoa(counts[i]), load(l), bar(l, top, width))
			continue
		}
		off := "-"
		if mean > 0 {
			off = strconv.FormatFloat(100*(l-mean)/mean, 'f', 1, 64) + " %"
			if l >= mean {
				off = "+" + off
			}
		}
		t.add(strconv.Itoa(i+1), strconv.Itoa(counts[i]), load(l), load(mean), off, bar(l, top, width))
	}
	return t
}

// bar draws x/top of width characters in eighths of a block.
func bar(x, top float64, width int) string {
	if top <= 0 || x <= 0 {
		return ""
	}
	eighths := int(math.Round(x / top * float64(width) * 8))
	s := strings.Repeat("█", eighths/8)
	if r := eighths % 8; r > 0 {
		s += string([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return s
}
