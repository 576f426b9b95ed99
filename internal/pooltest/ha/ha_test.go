//go:build linux

package ha

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
)

// startd starts a startd process of two slots on the machine name.
func (c *cluster) startd(name string) {
	c.t.Helper()
	execute := filepath.Join(c.dir, "execute-"+name)
	if err := os.MkdirAll(execute, 0o755); err != nil {
		c.t.Fatal(err)
	}
	c.start(name, "startd", "startd.name="+name, "startd.execute_dir="+execute)
}

// submit queues n jobs that hold their slot for ten minutes.
func (c *cluster) submit(n int) {
	c.t.Helper()
	sub := filepath.Join(c.dir, "sleep.sub")
	text := fmt.Sprintf("executable = /bin/sleep\narguments = 600\ntransfer_executable = false\nqueue %d\n", n)
	if err := os.WriteFile(sub, []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.run("submit", sub)
}

// submitter is the one user of the tests: the identity of the pool's
// administrator token, as kite init names it.
func submitter() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	out, _ := exec.Command("id", "-un").Output()
	return string(out[:max(0, len(out)-1)])
}

// startPool starts three central managers, a schedd and a startd, and
// waits until a negotiator leads.
func startPool(t *testing.T) *cluster {
	c := newCluster(t, options{centralManagers: 3, raft: true})
	for i := range 3 {
		c.startCentralManager(i)
	}
	c.start("schedd", "schedd")
	c.startd("exec1")
	c.waitFor(60*time.Second, "a leading negotiator", func() (bool, string) {
		id, state := c.leader(time.Time{})
		return id != "", state
	})
	return c
}

// Three central managers, 1 000 idle jobs: SIGKILL the leading negotiator
// and another takes over, matching a startd that comes after the kill
// within 10 s, with the user's usage whole; SIGKILL a collector and the
// pool goes on (HTCondor manual, "High Availability of the Central
// Manager": one negotiator at a time, several collectors, daemons
// updating all of them).
func TestThreeCentralManagers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts eight daemon processes")
	}
	c := startPool(t)
	c.submit(1000)
	user := submitter()
	c.waitFor(60*time.Second, "exec1's slots claimed", func() (bool, string) {
		n, err := c.claimed("exec1")
		return n == 2, fmt.Sprintf("%d claimed, %v", n, err)
	})
	// The user holds two slots: usage grows with each cycle. An
	// administrator sets the user's real priority (through whichever
	// negotiator kite userprio finds): it decays by hours, not seconds.
	before := c.usageAbove(user, 0)
	c.run("userprio", "-setprio", before.p.User, "123")
	before = c.usageAbove(user, 0)
	if before.p.Real < 122.9 {
		t.Fatalf("real priority %v after -setprio 123", before.p.Real)
	}

	leader, _ := c.leader(time.Time{})
	if cycling := c.cycling(); len(cycling) != 1 || cycling[0] != leader {
		t.Errorf("negotiators that ran cycles: %v; want the leader %s alone", cycling, leader)
	}
	killed := time.Now()
	c.kill(fmt.Sprintf("negotiator%d", c.negotiatorOf(leader)))
	c.startd("exec2")
	// Matching resumes within 10 s (30 s with every daemon under the race
	// detector, several times slower on a loaded machine).
	resume := 10 * time.Second
	if raceEnabled {
		resume = 30 * time.Second
	}
	took := c.waitFor(resume, "exec2's slots matched after the leader's death", func() (bool, string) {
		n, err := c.claimed("exec2")
		return n == 2, fmt.Sprintf("%d claimed, %v", n, err)
	})
	t.Logf("matching resumed %v after the leader's SIGKILL", took.Round(time.Millisecond))
	next, _ := c.leader(killed)
	if next == "" || next == leader {
		t.Errorf("leader after the kill %q; want another than %q", next, leader)
	}
	after, err := c.usage(user)
	if err != nil {
		t.Fatal(err)
	}
	// Usage only grows, and by no more than the slots held since: the
	// history before the kill is whole.
	held := time.Since(before.at).Hours() * 4
	t.Logf("usage %v h (real priority %v) before the kill, %v h (%v) after", before.p.Usage, before.p.Real, after.Usage, after.Real)
	if after.Usage < before.p.Usage || after.Usage > before.p.Usage+held+1e-9 {
		t.Errorf("usage %v h after the failover; want %v h plus at most %v h", after.Usage, before.p.Usage, held)
	}
	if !after.BeginUsage.Equal(before.p.BeginUsage) || after.Real < 122.9 || after.Real > 123 {
		t.Errorf("after the failover: usage since %v, real priority %v; want since %v, about 123",
			after.BeginUsage, after.Real, before.p.BeginUsage)
	}

	// A collector dies: status and matching go on.
	c.kill("collector0")
	c.startd("exec3")
	c.waitFor(resume, "exec3's slots matched with a collector dead", func() (bool, string) {
		n, err := c.claimed("exec3")
		return n == 2, fmt.Sprintf("%d claimed, %v", n, err)
	})
	ads, err := c.ads(attr.TypeSlot, "")
	if err != nil || len(ads) != 6 {
		t.Errorf("status with collector0 dead: %d slots, %v; want 6", len(ads), err)
	}
	if got := c.client.Collector().Addr(); got == c.collectors[0] {
		t.Errorf("the dead collector %s answered", got)
	}
	out := c.run("status", "-total")
	if !regexp.MustCompile(`-- answered by the collector at 127\.0\.0\.1:\d+\n`).MatchString(out) ||
		strings.Contains(out, c.collectors[0]) || !strings.Contains(out, "Total     6") {
		t.Errorf("kite status -total with %s dead:\n%s", c.collectors[0], out)
	}
}

// cycling returns the Raft ids of the negotiators whose ads report a
// negotiation cycle.
func (c *cluster) cycling() []string {
	ads, err := c.ads(attr.TypeNegotiator, "LastNegotiationCycleNumber0 > 0")
	if err != nil {
		c.t.Fatal(err)
	}
	var ids []string
	for _, ad := range ads {
		ids = append(ids, classad.EvalStringOr(ad, attr.RaftID, "?"))
	}
	return ids
}

// usageMark is a user's account at a moment.
type usageMark struct {
	p  api.Priority
	at time.Time
}

// usageAbove waits until the user's accumulated usage is above min and
// returns it.
func (c *cluster) usageAbove(user string, min float64) usageMark {
	c.t.Helper()
	var m usageMark
	c.waitFor(30*time.Second, "usage accounted", func() (bool, string) {
		p, err := c.usage(user)
		if err != nil {
			return false, err.Error()
		}
		m = usageMark{p: p, at: time.Now()}
		return p.Usage > min, fmt.Sprintf("usage %v h", p.Usage)
	})
	return m
}

// BenchmarkFailover SIGKILLs the leading negotiator b.N times and reports
// the median time until another leads and has run a cycle (failover) and
// until matching resumed; run it with -benchtime=10x for the closing
// note's median of ten kills.
func BenchmarkFailover(b *testing.B) {
	c := newCluster(b, options{centralManagers: 3, raft: true})
	for i := range 3 {
		c.startCentralManager(i)
	}
	c.waitFor(60*time.Second, "a leading negotiator", func() (bool, string) {
		id, state := c.leader(time.Time{})
		return id != "", state
	})
	var times []time.Duration
	for b.Loop() {
		leader, _ := c.leader(time.Time{})
		i := c.negotiatorOf(leader)
		killed := time.Now()
		c.kill(fmt.Sprintf("negotiator%d", i))
		times = append(times, c.waitFor(30*time.Second, "a new leader's cycle", func() (bool, string) {
			id, state := c.leader(killed)
			return id != "" && id != leader, state
		}))
		c.startNegotiator(i)
		c.waitFor(30*time.Second, "the restarted negotiator following", func() (bool, string) {
			ads, err := c.ads(attr.TypeNegotiator, fmt.Sprintf(`RaftID == %q && RaftState == "Follower"`, leader))
			return err == nil && len(ads) == 1, fmt.Sprint(err)
		})
	}
	secs := make([]float64, len(times))
	for i, d := range times {
		secs[i] = d.Seconds()
	}
	b.ReportMetric(median(secs), "s/failover")
	b.Logf("failover times: %v", times)
}

// BenchmarkCycle reports the leading negotiator's cycle time with one
// negotiator (no Raft) and with three replicas, on a pool of one startd
// and 1 000 idle jobs.
func BenchmarkCycle(b *testing.B) {
	for _, replicas := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			c := newCluster(b, options{centralManagers: replicas, raft: replicas > 1})
			for i := range replicas {
				c.startCentralManager(i)
			}
			c.start("schedd", "schedd")
			c.startd("exec1")
			c.submit(1000)
			var durations []float64
			last := int64(0)
			for b.Loop() {
				c.waitFor(30*time.Second, "a cycle", func() (bool, string) {
					ads, err := c.ads(attr.TypeNegotiator, "")
					if err != nil {
						return false, err.Error()
					}
					for _, ad := range ads {
						n := classad.EvalIntOr(ad, "LastNegotiationCycleNumber0", 0)
						if n > last {
							last = n
							d := classad.EvalNumberOr(ad, "LastNegotiationCycleDuration0", 0)
							durations = append(durations, d)
							return true, ""
						}
					}
					return false, "no new cycle"
				})
			}
			b.ReportMetric(median(durations)*1000, "ms/cycle")
		})
	}
}

// median is the median of xs (the mean of the middle two of an even
// count).
func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
