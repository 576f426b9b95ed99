package schedd

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/daemons/schedd/claims"
	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
	"github.com/kite-sched/kite/internal/wire"
)

// Flocking (HTCondor's FLOCK_TO): idle jobs that wait at home go to other
// pools' machines. The schedd keeps a flock level, the number of pools of
// schedd.flock_to (in their order) it advertises its submitters to beside
// its own pool:
//
//	level 0: home only
//	a job idle flock_after, the level unchanged flock_after ──▶ level + 1
//	         (at most the number of pools of flock_to)
//	no idle job left ──▶ level 0: its submitter ads leave those pools
//
// A pool at the level gets the submitter ads of the submitters with idle
// jobs (as the home collector does), on a flock token this pool issues
// for that one (FLOCK only, taken by that pool alone), which that pool
// trusts by this pool's key (its pool.flock_from). Its negotiator then
// asks this schedd for requests and sends matches like the home
// negotiator, on a flock token of its pool for this one, which this
// schedd trusts by that pool's key (pool.peers, named by schedd.flock_to)
// and takes only while it advertises there. The schedd claims the other
// pool's startd and runs the job as at home: files, events and end
// reports travel between the schedd and the startd. Every call to another
// pool's daemon presents the flock token for that pool, never this pool's
// DAEMON token (internal/daemon's ConnectorFor): to the collectors of a
// pool of flock_to, and to the startds of the claims that pool's
// negotiator matched (claims.Claim's Pool). Why a pool refused the ads is
// logged, and shown in the schedd's ad (KiteFlockErrors) until that pool
// takes them.

// FlockPool is a pool of schedd.flock_to: its name (its tokens' issuer)
// and its collectors.
type FlockPool struct {
	Name       string
	Collectors []string
}

// flockPools takes schedd.flock_to from a host configuration.
func flockPools(c *config.Config) []FlockPool {
	var out []FlockPool
	for _, name := range c.Schedd.FlockTo {
		out = append(out, FlockPool{Name: name, Collectors: c.Pool.Peers[name].Collectors})
	}
	return out
}

// Attributes of the schedd's ad about flocking.
const (
	attrFlockLevel  = "KiteFlockLevel"  // how many pools of flock_to get the submitters' ads
	attrFlockPools  = "KiteFlockPools"  // those pools, comma separated
	attrFlockErrors = "KiteFlockErrors" // "pool: why", "; " separated, for pools that refused
)

// flocking is a schedd's flocking to other pools.
type flocking struct {
	s     *Server
	pools []FlockPool
	colls []*wire.Collectors // each pool's collectors

	mu      sync.Mutex
	level   int
	changed time.Time         // when the level last changed
	sent    map[string]bool   // pools holding this schedd's submitter ads
	errs    map[string]string // pool → why it refused the last update
	seq     int64
	last    map[string]time.Time // pool → its last update (taken or refused)
	held    map[string]string    // pool → the submitters it holds, as advertise lists them
}

func newFlocking(s *Server) *flocking {
	f := &flocking{s: s, pools: s.cfg.FlockTo, sent: map[string]bool{}, errs: map[string]string{},
		last: map[string]time.Time{}, held: map[string]string{}}
	for _, p := range f.pools {
		f.colls = append(f.colls, s.env.ConnectorFor(p.Name).Collectors(p.Collectors))
	}
	return f
}

// run keeps the flock level and the flocked pools' ads until ctx is
// done, then takes the ads back.
func (f *flocking) run(ctx context.Context) {
	if len(f.pools) == 0 {
		return
	}
	f.changed = f.s.now()
	t := time.NewTicker(min(max(f.s.cfg.FlockAfter/2, 10*time.Millisecond), 5*time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			stop, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			f.advertise(stop, 0, nil)
			cancel()
			return
		case <-t.C:
			idle, waited := f.s.idleWait()
			level := f.next(idle, waited)
			f.advertise(ctx, level, f.s.flockAds)
		}
	}
}

// next applies the rule to the idle jobs (idle of them, the longest
// waiting waited) and returns the new level.
func (f *flocking) next(idle int, waited time.Duration) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.s.now()
	if level := nextLevel(f.level, len(f.pools), idle, waited, now.Sub(f.changed), f.s.cfg.FlockAfter); level != f.level {
		f.setLevel(level, now)
	}
	return f.level
}

// nextLevel is the flocking rule: the level after level (of pools pools)
// when idle jobs are idle, the longest waiting for waited, the level
// unchanged for steady, with flock_after after.
func nextLevel(level, pools, idle int, waited, steady, after time.Duration) int {
	switch {
	case idle == 0:
		return 0
	case level < pools && waited >= after && steady >= after:
		return level + 1
	}
	return level
}

func (f *flocking) setLevel(level int, now time.Time) {
	f.s.log.Info("flock level", "from", f.level, "to", level, "pools", f.names(level))
	f.level, f.changed = level, now
	f.s.kickAds()
}

// names lists the pools of the first level ones.
func (f *flocking) names(level int) []string {
	var out []string
	for _, p := range f.pools[:level] {
		out = append(out, p.Name)
	}
	return out
}

// advertise sends the pools of the level the ads ads makes, and takes
// the ads back from the pools above it that hold them.
func (f *flocking) advertise(ctx context.Context, level int, ads func(seq int64) []*classad.Ad) {
	var batch []*classad.Ad
	var who string // the submitters of the batch
	if level > 0 {
		f.mu.Lock()
		f.seq++
		seq := f.seq
		f.mu.Unlock()
		batch = ads(seq)
		for _, ad := range batch {
			who += classad.EvalStringOr(ad, attr.Name, "") + "\n"
		}
	}
	for i, p := range f.pools {
		switch {
		case i < level && f.due(p.Name, who):
			f.record(p.Name, f.send(ctx, f.colls[i], batch), who)
		case i >= level && f.holds(p.Name) && f.due(p.Name, ""):
			err := f.colls[i].Call(ctx, "POST", wire.PathInvalidate, wire.Invalidate{Type: attr.TypeSubmitter, Constraint: f.s.ownSubmitters()}, nil)
			f.record(p.Name, err, "")
		}
	}
}

// send sends ads to a pool's collectors.
func (f *flocking) send(ctx context.Context, coll *wire.Collectors, ads []*classad.Ad) error {
	if len(ads) == 0 {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return coll.CallRaw(cctx, "POST", wire.PathAds, classad.AppendJSONArray(nil, ads), nil)
}

// due says whether a pool of the level should get the ads of the
// submitters who now: it holds another set of submitters, or took the
// last ones an update interval ago, or refused them flock_after ago. (Its
// negotiator asks this schedd for the requests themselves: the counts in
// the ads need not be fresh.)
func (f *flocking) due(pool, who string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	last, ok := f.last[pool]
	switch {
	case !ok:
		return true
	case f.errs[pool] != "":
		return f.s.now().Sub(last) >= f.s.cfg.FlockAfter
	}
	return f.held[pool] != who || f.s.now().Sub(last) >= f.s.cfg.UpdateInterval
}

// holds says whether a pool holds this schedd's submitter ads.
func (f *flocking) holds(pool string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent[pool]
}

// record notes how an update of a pool went: the ads of the submitters
// who sent (who is "" when the ads were taken back), and logs a refusal
// when its reason changes.
func (f *flocking) record(pool string, err error, who string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.last[pool] = f.s.now()
	if err != nil {
		if f.errs[pool] != err.Error() {
			f.s.log.Warn("a pool of flock_to refused this schedd's submitter ads", "pool", pool, "err", err)
			f.errs[pool] = err.Error()
			f.s.kickAds()
		}
		return
	}
	if f.errs[pool] != "" {
		f.s.log.Info("a pool of flock_to takes this schedd's submitter ads again", "pool", pool)
		delete(f.errs, pool)
		f.s.kickAds()
	}
	f.held[pool], f.sent[pool] = who, who != ""
	if who == "" {
		delete(f.last, pool)
	}
}

// allows says whether a negotiator of another pool may negotiate here
// now: its pool is one this schedd advertises to.
func (f *flocking) allows(caller auth.Identity) error {
	if caller.Pool == "" {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !slices.Contains(f.names(f.level), caller.Pool) {
		return wire.Forbidden("%s of pool %q: this schedd does not flock to that pool now (flock level %d of schedd.flock_to)",
			caller.Name, caller.Pool, f.level)
	}
	return nil
}

// describe sets the flocking attributes of the schedd's ad.
func (f *flocking) describe(ad *classad.Ad) {
	if f == nil || len(f.pools) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ad.Set(attrFlockLevel, ast.Int(int64(f.level)))
	ad.Set(attrFlockPools, ast.Str(strings.Join(f.names(f.level), ",")))
	if len(f.errs) > 0 {
		var errs []string
		for p, e := range f.errs {
			errs = append(errs, p+": "+e)
		}
		sort.Strings(errs)
		ad.Set(attrFlockErrors, ast.Str(strings.Join(errs, "; ")))
	}
}

// negotiationKey is what a submitter's requests are remembered under
// until their matches come: the negotiators of several pools ask for
// them, each with its own significant attributes, so each pool's are
// kept apart ("" is this pool's).
func negotiationKey(submitter, pool string) string {
	if pool == "" {
		return submitter
	}
	return submitter + "\x00" + pool
}

// markFlocked sets KiteFlockedFrom, this pool's name, in the request ads
// the negotiator of another pool (pool) asked for, so that its slots'
// START may tell flocked jobs from that pool's own (the startd sets it
// again at the claim, from the claiming schedd's token).
func (s *Server) markFlocked(reqs []wire.ResourceRequest, pool string) {
	if pool == "" || s.env.Config == nil {
		return
	}
	for _, r := range reqs {
		if r.Ad != nil {
			r.Ad.Set(attr.FlockedFrom, ast.Str(s.env.Config.Pool.Name))
		}
	}
}

// startd returns the client for the startd of a claim, presenting the
// tokens for the claim's pool: never this pool's DAEMON token to another
// pool's startd.
func (s *Server) startd(c *claims.Claim) *wire.Client {
	return s.env.ConnectorFor(c.Pool).Client(c.Startd)
}

// attrRemotePool is HTCondor's job attribute naming the pool a flocked
// job runs in (here the pool's name): set when the job starts on another
// pool's slot, removed when it starts at home, kept after it ran.
const attrRemotePool = "RemotePool"

// markPool marks the slots of matches with the pool whose negotiator sent
// them ("" for this pool's: no mark).
func markPool(matches []wire.Match, pool string) {
	for _, m := range matches {
		switch {
		case m.Slot == nil:
		case pool == "":
			m.Slot.Delete(attrRemotePool)
		default:
			m.Slot.Set(attrRemotePool, ast.Str(pool))
		}
	}
}

// carryPool marks the slot ad a startd answered a claim with (to) with
// the pool of the matched one (from).
func carryPool(from, to *classad.Ad) {
	if pool := classad.EvalStringOr(from, attrRemotePool, ""); pool != "" && to != from {
		to.Set(attrRemotePool, ast.Str(pool))
	}
}

// setRemotePool records on a job that starts on claim c the pool of c's
// startd (kept across a restart of the schedd, which reconnects the claim
// with it).
func setRemotePool(tx *queue.Tx, j *queue.Job, c *claims.Claim) {
	if c.Pool != "" {
		tx.SetString(j, attrRemotePool, c.Pool)
	} else {
		tx.Delete(j, attrRemotePool)
	}
}

// idleWait returns how many jobs are idle and matchable, and how long the
// one idle longest has waited (by its EnteredCurrentStatus).
func (s *Server) idleWait() (idle int, waited time.Duration) {
	now := s.now().Unix()
	oldest := now
	s.q.Read(func(r *queue.Reader) {
		for c := range r.Clusters {
			if clusterOnSchedd(c) {
				continue // jobs the schedd runs itself (local.go)
			}
			for j := range c.Jobs {
				if j.Status() != attr.Idle || !s.claims.Matchable(j.ID) {
					continue
				}
				v := j.View()
				idle++
				oldest = min(oldest, v.Int(attr.EnteredCurrentStatus, now))
			}
		}
	})
	return idle, time.Duration(now-oldest) * time.Second
}

// flockAds returns the submitter ads a flocked pool gets: those of the
// submitters with idle jobs.
func (s *Server) flockAds(seq int64) []*classad.Ad {
	var per map[string]queue.Counts
	s.q.Read(func(r *queue.Reader) { per, _ = r.SubmitterCounts() })
	var ads []*classad.Ad
	for o, c := range per {
		if c.Idle > 0 {
			ads = append(ads, s.submitterAd(o, seq, c))
		}
	}
	slices.SortFunc(ads, func(a, b *classad.Ad) int {
		return strings.Compare(classad.EvalStringOr(a, attr.Name, ""), classad.EvalStringOr(b, attr.Name, ""))
	})
	return ads
}

// ownSubmitters is the constraint that selects this schedd's submitter ads.
func (s *Server) ownSubmitters() string {
	return attr.ScheddName + " == " + string(ast.AppendQuoted(nil, s.name))
}

// FlockLevel returns the schedd's flock level and why pools of flock_to
// refused its ads, for tests and tools.
func (s *Server) FlockLevel() (int, map[string]string) {
	s.flock.mu.Lock()
	defer s.flock.mu.Unlock()
	errs := map[string]string{}
	for p, e := range s.flock.errs {
		errs[p] = e
	}
	return s.flock.level, errs
}
