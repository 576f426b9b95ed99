// Package reliability is JoSchKa's node monitoring (Bonn and Schmeck,
// paper 000; algorithms.md §2): what a pool learns of each machine from
// the outcomes of the jobs it ran — its benchmark class B, the mean work
// times of its failed and successful jobs avF and avS, its mean uptime
// avU and its reliability index R — and of each job type from its
// finished jobs — the mean runtime avT and the runtime index avTI — plus
// the normalisations over a pool (the power class nP, the runtime class
// nTIME, the spread of reliability) that JoSchKa's strategies use.
//
// It is a record of outcomes in and ad attributes out, with no notion of
// who observes: the simulator keeps one Node per simulated machine, and
// the live pool keeps the same records (they marshal to JSON for durable
// storage) and publishes the same attributes (internal/attr's
// KiteReliability and friends), so that Rank and Requirements
// expressions and the strategies of internal/policy read them alike.
//
// Times are seconds; the paper's thresholds in minutes are converted.
// Where the paper leaves a case open the choice is documented on the
// function (Kite's choices, as in algorithms.md).
package reliability

import (
	"fmt"
	"math"
	"slices"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// The paper's constants (paper 000, §3.1: "t_f = t_s = 5, k = 5 and
// nP_MAX = 20").
const (
	// Window is t_f = t_s: how many of the last failed and successful
	// work times avF and avS average (and the uptimes avU).
	Window = 5
	// K bounds the reliability index: R is in [-K, K], half the sum of
	// the last 2K outcomes.
	K = 5
	// Classes is nP_MAX = TIMEMAX: power and runtime classes run from 0
	// to Classes.
	Classes = 20
	// RuntimeWindow is how many of a job type's last runtimes its mean
	// avT averages.
	RuntimeWindow = 10
)

// BenchmarkIndex is the benchmark class B of a machine whose benchmark
// took ms milliseconds (rB): 4 under 5 s, 2 under 10 s, 0 under 15 s, -2
// under 20 s, -4 from 20 s on. Kite: an unknown benchmark (ms <= 0 or not
// a number) is class 0, neither fast nor slow.
func BenchmarkIndex(ms float64) int {
	switch {
	case !(ms > 0):
		return 0
	case ms < 5000:
		return 4
	case ms < 10000:
		return 2
	case ms < 15000:
		return 0
	case ms < 20000:
		return -2
	}
	return -4
}

// Node is what the pool knows of one machine: its benchmark and the
// outcomes of the jobs it ran, newest last. The zero Node (no benchmark,
// no history) is valid. Its fields marshal to JSON for durable storage;
// Validate checks a record read back.
type Node struct {
	// Benchmark is rB in milliseconds (0: unknown).
	Benchmark float64 `json:"benchmark,omitempty"`
	// Failed, Succeeded and Uptimes are the work times (seconds) of the
	// last Window lost and finished jobs and the last Window periods the
	// machine was up, oldest first.
	Failed    []float64 `json:"failed,omitempty"`
	Succeeded []float64 `json:"succeeded,omitempty"`
	Uptimes   []float64 `json:"uptimes,omitempty"`
	// Outcomes are the last 2K jobs' outcomes, oldest first: +1 finished,
	// -1 lost.
	Outcomes []int8 `json:"outcomes,omitempty"`
	// Totals over the machine's life: jobs finished and lost; for paper
	// 004's penalties, the finished jobs whose expected runtime was known
	// and how much longer than expected they ran, summed, and the
	// expected runtimes of the lost jobs, summed.
	Completed    int     `json:"completed,omitempty"`
	Lost         int     `json:"lost,omitempty"`
	Timed        int     `json:"timed,omitempty"`
	DelaySum     float64 `json:"delay_sum,omitempty"`
	LostExpected float64 `json:"lost_expected,omitempty"`
}

// Done records a job the machine finished after working work seconds;
// expected is the runtime its power promised (0: unknown).
func (n *Node) Done(work, expected float64) {
	n.Succeeded = push(n.Succeeded, work, Window)
	n.Outcomes = push(n.Outcomes, 1, 2*K)
	n.Completed++
	if expected > 0 {
		n.Timed++
		n.DelaySum += work - expected
	}
}

// Abort records a job the machine lost (it failed, was switched off or
// went away) after working work seconds; expected is as for Done.
func (n *Node) Abort(work, expected float64) {
	n.Failed = push(n.Failed, work, Window)
	n.Outcomes = push(n.Outcomes, -1, 2*K)
	n.Lost++
	if expected > 0 {
		n.LostExpected += expected
	}
}

// Up records a period of uptime that ended (the machine failed or was
// switched off) after seconds.
func (n *Node) Up(seconds float64) { n.Uptimes = push(n.Uptimes, seconds, Window) }

// push appends v, keeping the newest max values.
func push[T any](s []T, v T, max int) []T {
	if len(s) < max {
		return append(s, v)
	}
	copy(s, s[1:])
	s[len(s)-1] = v
	return s
}

// B is the machine's benchmark class.
func (n *Node) B() int { return BenchmarkIndex(n.Benchmark) }

// R is the reliability index: half the sum of the last 2K outcomes. The
// paper starts R at B; Kite reads that as B standing for the outcomes not
// seen yet: with n < 2K outcomes, R = round(½ Σ r + B (2K - n) / 2K)
// (halves away from zero), which is B with no history and exactly the
// paper's sum once 2K jobs are known. R is an integer in [-K, K].
func (n *Node) R() int {
	sum := 0
	for _, o := range n.Outcomes {
		sum += int(o)
	}
	seen := min(len(n.Outcomes), 2*K)
	r := float64(sum)/2 + float64(n.B())*float64(2*K-seen)/float64(2*K)
	return int(math.Round(r))
}

// AvF is the mean work time of the last Window lost jobs; false when
// none was lost.
func (n *Node) AvF() (float64, bool) { return mean(n.Failed) }

// AvS is the mean work time of the last Window finished jobs; false when
// none finished.
func (n *Node) AvS() (float64, bool) { return mean(n.Succeeded) }

// AvU is the mean of the last Window periods up; false before the first
// one ended.
func (n *Node) AvU() (float64, bool) { return mean(n.Uptimes) }

// Delay is paper 004's d_j: how much longer than expected the finished
// jobs ran, on average (negative: faster); false when none was timed.
// Kite: the slides print d_j = mean(expected - actual), which would
// reward a machine slower than its power promises; Kite takes
// actual - expected, the sign that makes it the penalty the slides
// describe.
func (n *Node) Delay() (float64, bool) {
	if n.Timed == 0 {
		return 0, false
	}
	return n.DelaySum / float64(n.Timed), true
}

func mean(v []float64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v)), true
}

// Validate reports a record that cannot have come from Done, Abort and
// Up: windows too long, negative times, outcomes other than ±1.
func (n *Node) Validate() error {
	switch {
	case len(n.Failed) > Window || len(n.Succeeded) > Window || len(n.Uptimes) > Window:
		return errorf("a window holds more than %d times", Window)
	case len(n.Outcomes) > 2*K:
		return errorf("more than %d outcomes", 2*K)
	case n.Completed < 0 || n.Lost < 0 || n.Timed < 0 || n.Timed > n.Completed:
		return errorf("bad job counts")
	case !finite(n.Benchmark) || n.Benchmark < 0 || !finite(n.DelaySum) || !finite(n.LostExpected) || n.LostExpected < 0:
		return errorf("bad benchmark or totals")
	}
	for _, w := range [][]float64{n.Failed, n.Succeeded, n.Uptimes} {
		for _, x := range w {
			if !finite(x) || x < 0 {
				return errorf("bad time %v", x)
			}
		}
	}
	for _, o := range n.Outcomes {
		if o != 1 && o != -1 {
			return errorf("bad outcome %d (want 1 or -1)", o)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Publish writes the machine's attributes into a slot ad:
// KiteBenchmarkIndex, KiteReliability, KiteAvgFailedTime,
// KiteAvgSucceededTime, KiteAvgUptime, KiteRuntimeDelay and
// KiteLostRuntime, and KiteJobsCompleted and KiteJobsAborted. Values not
// known yet are removed, so that expressions see them undefined.
func (n *Node) Publish(ad *classad.Ad) {
	ad.Set(attr.KiteBenchmarkIndex, ast.Int(int64(n.B())))
	ad.Set(attr.KiteReliability, ast.Int(int64(n.R())))
	setKnown(ad, attr.KiteAvgFailedTime)(n.AvF())
	setKnown(ad, attr.KiteAvgSucceededTime)(n.AvS())
	setKnown(ad, attr.KiteAvgUptime)(n.AvU())
	setKnown(ad, attr.KiteRuntimeDelay)(n.Delay())
	ad.Set(attr.KiteLostRuntime, ast.Real(n.LostExpected))
	ad.Set(attr.KiteJobsCompleted, ast.Int(int64(n.Completed)))
	ad.Set(attr.KiteJobsAborted, ast.Int(int64(n.Lost)))
}

// setKnown returns a setter of name that removes it when the value is
// not known.
func setKnown(ad *classad.Ad, name string) func(float64, bool) {
	return func(v float64, ok bool) {
		if !ok {
			ad.Delete(name)
			return
		}
		ad.Set(name, ast.Real(v))
	}
}

// PowerClass is the normalised power class nP of a machine with
// reliability r in a pool whose indices span [lo, hi]:
// floor((r - lo) / (hi - lo) · Classes + 0.5), so the least reliable
// machine is class 0 and the most reliable Classes. Kite: when every
// machine is alike (hi <= lo) all are the middle class, Classes/2; r
// outside [lo, hi] is clamped.
func PowerClass(r, lo, hi float64) int { return normalise(r, lo, hi) }

// TimeClass is the runtime class nTIME of a job type with runtime index
// avTI among types whose indices span [lo, hi], normalised as PowerClass
// normalises reliability.
func TimeClass(avTI, lo, hi int) int { return normalise(float64(avTI), float64(lo), float64(hi)) }

func normalise(x, lo, hi float64) int {
	if !(hi > lo) {
		return Classes / 2
	}
	x = math.Max(lo, math.Min(hi, x))
	return int(math.Floor((x-lo)/(hi-lo)*Classes + 0.5))
}

// RuntimeIndex is the runtime index avTI of a job type whose jobs run
// seconds on average: -8 under 15 minutes, -5 under an hour, -3 under 3
// hours, 0 under 8, 3 under 16, 5 under 36 hours, and 8 from then on.
func RuntimeIndex(seconds float64) int {
	switch m := seconds / 60; {
	case m < 15:
		return -8
	case m < 60:
		return -5
	case m < 180:
		return -3
	case m < 480:
		return 0
	case m < 960:
		return 3
	case m < 2160:
		return 5
	}
	return 8
}

// Quantile is the p-quantile of sorted values by nearest rank: the
// smallest value with at least a share p of the values at or below it
// (sorted[ceil(p n) - 1]); 0 for no values.
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// MajorityInterval is the width of the range holding the middle 80 % of
// the reliability indices rs, Q(0.9) - Q(0.1) (the combined strategy's
// majorityInterval). It sorts rs.
func MajorityInterval(rs []float64) float64 {
	slices.Sort(rs)
	return Quantile(rs, 0.9) - Quantile(rs, 0.1)
}

// JobType is what the pool knows of one type of jobs: the runtimes of
// its last finished jobs, newest last. Its fields marshal to JSON.
type JobType struct {
	Runtimes []float64 `json:"runtimes,omitempty"`
}

// Done records a job of the type that finished after running seconds.
func (t *JobType) Done(seconds float64) { t.Runtimes = push(t.Runtimes, seconds, RuntimeWindow) }

// Runtime is the type's mean runtime avT over its last RuntimeWindow
// finished jobs; false before the first.
func (t *JobType) Runtime() (float64, bool) { return mean(t.Runtimes) }

// PublishType writes a job type's statistics into a request's ad:
// KiteTypeJobs (submitted), KiteTypeDone, KiteTypeRunning, and, once a
// job finished, KiteTypeRuntime and KiteTypeRuntimeIndex.
func PublishType(ad *classad.Ad, t *JobType, jobs, done, running int) {
	ad.Set(attr.KiteTypeJobs, ast.Int(int64(jobs)))
	ad.Set(attr.KiteTypeDone, ast.Int(int64(done)))
	ad.Set(attr.KiteTypeRunning, ast.Int(int64(running)))
	avT, ok := t.Runtime()
	setKnown(ad, attr.KiteTypeRuntime)(avT, ok)
	if !ok {
		ad.Delete(attr.KiteTypeRuntimeIndex)
		return
	}
	ad.Set(attr.KiteTypeRuntimeIndex, ast.Int(int64(RuntimeIndex(avT))))
}

// TypeAttrs are the job attributes that name a job's type, in the order
// TypeOf tries them.
var TypeAttrs = []string{attr.KiteJobType, attr.JobBatchName, attr.Owner}

// TypeOf names a job's type: its KiteJobType, else its JobBatchName,
// else its Owner (JoSchKa's jobType is <user>_<project>); "" when it has
// none of them.
func TypeOf(ad *classad.Ad) string {
	for _, name := range TypeAttrs {
		e, ok := ad.Lookup(name)
		if !ok {
			continue
		}
		if l, ok := e.(*ast.Literal); ok && l.Kind == ast.StringLit {
			return l.Str
		}
		if v, err := classad.EvalAttr(ad, name, nil); err == nil {
			if s, ok := v.StringValue(); ok {
				return s
			}
		}
	}
	return ""
}

// errorf makes a record error.
func errorf(format string, args ...any) error {
	return fmt.Errorf("reliability record: "+format, args...)
}
