package collector

import (
	"fmt"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Flocking (HTCondor's FLOCK_FROM): the schedds of the pools this pool
// trusts (pool.flock_from) send their submitter ads here, on their own
// pool's DAEMON tokens, which hold FLOCK here and nothing more. Such a
// schedd may store Submitter ads only, each marked with its pool
// (KiteFlockedFrom), and may neither replace an ad that another pool (or
// this one) stored nor remove any ad but its own pool's; it reads nothing.

// updateFrom stores the submitter ads a schedd of the flocking pool
// sent: all or nothing.
func (s *Store) updateFrom(pool string, ads []*classad.Ad, now time.Time) (stored, stale int, err error) {
	for i, ad := range ads {
		if typ, _ := adString(ad, attr.MyType); !strings.EqualFold(typ, attr.TypeSubmitter) {
			return 0, 0, fmt.Errorf("ad %d: a schedd of pool %q, flocking here, may advertise %s ads only, not %q", i+1, pool, attr.TypeSubmitter, typ)
		}
		ad.Set(attr.FlockedFrom, ast.Str(pool))
	}
	// No raw JSON: each ad is encoded again with its mark.
	entries, err := s.entries(ads, nil, now)
	if err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, e := range entries {
		if old := s.get(e.typ, e.name); old != nil {
			if from, _ := adString(old.ad, attr.FlockedFrom); from != pool {
				return 0, 0, fmt.Errorf("ad %d: %s %q is advertised already by %s; a flocking pool's ad may not replace it",
					i+1, e.typ, classad.EvalStringOr(e.ad, attr.Name, ""), origin(from))
			}
		}
	}
	stored, stale = s.putAll(entries, now)
	s.updates += int64(len(entries))
	return stored, stale, nil
}

// origin names who stored an ad, for errors.
func origin(pool string) string {
	if pool == "" {
		return "this pool"
	}
	return fmt.Sprintf("pool %q", pool)
}

// flockInvalidate is an invalidation by a flocking pool's schedd: of
// Submitter ads, by constraint, and only among its pool's ads.
func (s *Server) flockInvalidate(pool string, req wire.Invalidate) (*classad.Program, error) {
	if !strings.EqualFold(req.Type, attr.TypeSubmitter) || len(req.Names) > 0 {
		return nil, wire.Forbidden("a schedd of pool %q, flocking here, may remove %s ads by constraint only", pool, attr.TypeSubmitter)
	}
	c := attr.FlockedFrom + " =?= " + string(ast.AppendQuoted(nil, pool))
	if strings.TrimSpace(req.Constraint) != "" {
		// Whole on its own first, so that it cannot close the parenthesis
		// around it and reach other pools' ads.
		if _, err := s.compileConstraint(req.Constraint); err != nil {
			return nil, err
		}
		c += " && (" + req.Constraint + ")"
	}
	return s.compileConstraint(c)
}
