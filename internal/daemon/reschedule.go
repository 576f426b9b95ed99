package daemon

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// Reschedule asks the pool's negotiators, as the collector lists them, for
// a cycle soon (condor_reschedule): a schedd with new idle jobs, a startd
// with a slot just freed. A pool without a negotiator is fine.
func (e *Env) Reschedule(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var addrs []string
	q := wire.Query{Type: attr.TypeNegotiator, Projection: []string{attr.MyAddress}}
	err := e.Collector().Stream(cctx, "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		ad, err := classad.ParseJSON(item)
		if err != nil {
			return nil
		}
		v, _ := classad.EvalAttr(ad, attr.MyAddress, nil)
		if a, ok := v.StringValue(); ok && a != "" {
			addrs = append(addrs, a)
		}
		return nil
	})
	if err != nil {
		return
	}
	for _, a := range addrs {
		if err := e.Connector().Client(a).Call(cctx, "POST", wire.PathReschedule, nil, nil); err != nil {
			e.Log.Debug("poking the negotiator", "addr", a, "err", err)
		}
	}
}
