package api

import (
	"context"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

// Schedd is a schedd: a job queue and its history.
type Schedd struct {
	c    *wire.Client
	addr string
	name string
}

// Addr returns the schedd's address.
func (s *Schedd) Addr() string { return s.addr }

// Name returns the schedd's name (its address when it was not found
// through the collector).
func (s *Schedd) Name() string { return s.name }

// Query streams the job ads q selects, in cluster.proc order, to each,
// which may stop the query by returning an error (which Query returns).
// With q.Projection set, each ad holds only those attributes.
func (s *Schedd) Query(ctx context.Context, q JobQuery, each func(*classad.Ad) error) error {
	return streamAds(ctx, s.c, wire.PathQueue, q, each)
}

// QueryAll returns the job ads q selects.
func (s *Schedd) QueryAll(ctx context.Context, q JobQuery) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	err := s.Query(ctx, q, collect(&ads))
	return ads, err
}

// History streams the ads of jobs that left the queue, newest first.
func (s *Schedd) History(ctx context.Context, q HistoryQuery, each func(*classad.Ad) error) error {
	return streamAds(ctx, s.c, wire.PathHistory, q, each)
}

// HistoryAll returns the ads of jobs that left the queue, newest first.
func (s *Schedd) HistoryAll(ctx context.Context, q HistoryQuery) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	err := s.History(ctx, q, collect(&ads))
	return ads, err
}

// Act removes, holds, releases or vacates the jobs a selects. The caller
// acts on its own jobs only, unless it is an ADMINISTRATOR.
func (s *Schedd) Act(ctx context.Context, a Act) (ActResult, error) {
	var res ActResult
	err := s.c.Call(ctx, "POST", wire.PathAct, a, &res)
	return res, err
}

// Edit sets attributes (ClassAd expressions) of the jobs e selects
// (condor_qedit).
func (s *Schedd) Edit(ctx context.Context, e Edit) (ActResult, error) {
	var res ActResult
	err := s.c.Call(ctx, "POST", wire.PathEdit, e, &res)
	return res, err
}

// Totals counts the queue's jobs, in all and by owner.
func (s *Schedd) Totals(ctx context.Context) (QueueTotals, error) {
	var t QueueTotals
	err := s.c.Call(ctx, "GET", wire.PathTotals, nil, &t)
	return t, err
}
