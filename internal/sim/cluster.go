package sim

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/kite-sched/kite/classad"
	clustering "github.com/kite-sched/kite/internal/autocluster"
	"github.com/kite-sched/kite/internal/matchmaker"
)

// The simulated schedds: idle jobs in autoclusters, oldest first.

// autoclusterOf returns the autocluster of job j, making it if new.
func (e *engine) autoclusterOf(j int32) int32 {
	jb := &e.jobs[j]
	if jb.ac >= 0 {
		return jb.ac
	}
	g := &e.groups[jb.group]
	buf := strconv.AppendInt(e.keyBuf[:0], int64(jb.group), 10)
	buf = append(buf, 0)
	var sub int32
	if g.ads != nil {
		sub = g.subs[jb.index]
		buf = strconv.AppendInt(buf, int64(sub), 10)
		buf = append(buf, 0)
		buf = append(buf, e.signer.Signature(g.ads[jb.index])...)
	} else {
		sub = g.sub
		buf = append(buf, e.generatedSignature(g, j)...)
	}
	e.keyBuf = buf
	id, ok := e.acByKey[string(buf)]
	if !ok {
		id = int32(len(e.acs))
		e.acByKey[string(buf)] = id
		a := &autocluster{id: strconv.Itoa(int(id)), sub: sub, group: jb.group, shown: -1}
		if g.template != nil {
			a.ad = g.template.Clone()
			a.prio = e.st.Workload[jb.group].Prio
		}
		e.acs = append(e.acs, a)
	}
	jb.ac = id
	return id
}

// generatedSignature is the autocluster signature of generated job j of
// group g: the group's template is its cluster's ad, and the values
// showJobAd writes (the same names for every job of a group) are its own.
// Unless one of those is significant, every job has the template's.
func (e *engine) generatedSignature(g *groupInfo, j int32) string {
	if g.apart == 0 {
		g.apart = 1
		e.showJobAd(g.own, j)
		for n := range g.own.All() {
			if e.signer.SetsApart(g.template, n) {
				g.apart = 2
			}
		}
	}
	if g.apart == 1 {
		return e.signer.ClusterSignature(g.template)
	}
	e.showJobAd(g.own, j)
	return e.signer.Signature(clustering.Proc{Cluster: g.template, Own: g.own})
}

// pushIdle makes job j idle in its autocluster.
func (e *engine) pushIdle(j int32) {
	jb := &e.jobs[j]
	jb.state = jobIdle
	id := e.autoclusterOf(j)
	a := e.acs[id]
	if a.head < len(a.fifo) && j < a.fifo[len(a.fifo)-1] {
		a.pushBack(j) // an older job, idle again
	} else {
		a.fifo = append(a.fifo, j)
	}
	a.idle++
	e.idle++
	if !a.live {
		a.live = true
		e.subs[a.sub].acs = append(e.subs[a.sub].acs, id)
	}
}

// pushBack adds a job to the heap of jobs idle again.
func (a *autocluster) pushBack(j int32) {
	a.back = append(a.back, j)
	for i := len(a.back) - 1; i > 0; {
		p := (i - 1) / 2
		if a.back[p] <= a.back[i] {
			break
		}
		a.back[i], a.back[p] = a.back[p], a.back[i]
		i = p
	}
}

// first returns the oldest idle job, or -1.
func (a *autocluster) first() int32 {
	switch {
	case a.head < len(a.fifo) && (len(a.back) == 0 || a.fifo[a.head] < a.back[0]):
		return a.fifo[a.head]
	case len(a.back) > 0:
		return a.back[0]
	}
	return -1
}

// pop takes the oldest idle job.
func (e *engine) pop(a *autocluster) int32 {
	j := a.first()
	if j < 0 {
		return -1
	}
	if a.head < len(a.fifo) && a.fifo[a.head] == j {
		a.head++
		if a.head > 1024 && a.head*2 > len(a.fifo) {
			a.fifo = append(a.fifo[:0], a.fifo[a.head:]...)
			a.head = 0
		}
	} else {
		last := len(a.back) - 1
		a.back[0] = a.back[last]
		a.back = a.back[:last]
		for i := 0; ; {
			l, r, m := 2*i+1, 2*i+2, i
			if l < last && a.back[l] < a.back[m] {
				m = l
			}
			if r < last && a.back[r] < a.back[m] {
				m = r
			}
			if m == i {
				break
			}
			a.back[i], a.back[m] = a.back[m], a.back[i]
			i = m
		}
	}
	a.idle--
	e.idle--
	return j
}

// requests returns the submitters with idle jobs and their autoclusters,
// each shown by its oldest job, in the schedds' order (JobPrio, then age).
func (e *engine) requests() []matchmaker.Submitter {
	out := e.subBuf[:0]
	for _, s := range e.subs {
		live := s.acs[:0]
		for _, id := range s.acs {
			if a := e.acs[id]; a.idle > 0 {
				live = append(live, id)
			} else {
				a.live = false
			}
		}
		s.acs = live
		if len(live) == 0 {
			continue
		}
		slices.SortFunc(live, func(x, y int32) int {
			a, b := e.acs[x], e.acs[y]
			if c := cmp.Compare(b.prio, a.prio); c != 0 {
				return c
			}
			return cmp.Compare(a.first(), b.first())
		})
		sub := matchmaker.Submitter{Name: s.name, Schedd: "sim", Priority: e.acct.Effective(s.name), InUse: float64(s.running)}
		if e.dispatch == Queue && !e.pol.Batch {
			// Immediate dispatch: one job at a time, the oldest, so that
			// each is placed seeing the hosts' queues as the jobs before
			// it left them.
			a := e.acs[live[0]]
			sub.Requests = append(sub.Requests, matchmaker.Request{ID: a.id, Count: 1, Ad: e.show(a)})
			out = append(out, sub)
			continue
		}
		for _, id := range live {
			a := e.acs[id]
			sub.Requests = append(sub.Requests, matchmaker.Request{ID: a.id, Count: a.idle, Ad: e.show(a)})
		}
		out = append(out, sub)
	}
	if e.replicating() {
		out = e.replicaRequests(out)
	}
	e.subBuf = out
	return out
}

// show returns the ad an autocluster shows: its first job's.
func (e *engine) show(a *autocluster) *classad.Ad {
	j := a.first()
	g := &e.groups[a.group]
	if g.ads != nil {
		ad := g.ads[e.jobs[j].index]
		e.publishType(ad, e.jobs[j].typ)
		return ad
	}
	if a.shown != j {
		e.showJobAd(a.ad, j)
		a.shown = j
	}
	e.publishType(a.ad, e.jobs[j].typ)
	return a.ad
}
