package negotiator_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/negotiator"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
	"github.com/kite-sched/kite/internal/wire"
)

// condor_userprio -setprio USER VALUE (HTCondor's manual,
// man-pages/condor_userprio.rst, "Edit option", ADMINISTRATOR only): the
// real priority is set, committed before the answer, and shows in the
// priorities; a user may not, a value below 0.5 is refused, and a change
// the accountant cannot commit (a full disk) is refused and changes
// nothing, for -setfactor and -resetusage too.
func TestSetPriorityEndpoint(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	n := start.Negotiator(t, p, func(c *negotiator.Config) { c.Interval, c.CycleDelay = time.Hour, time.Hour })
	ctx := context.Background()
	user := p.Client(n.Addr(), "alice", auth.Write)
	admin := p.Client(n.Addr(), "root", auth.Administrator)
	set := func(cl *wire.Client, prio float64) (wire.Priority, error) {
		var pr wire.Priority
		err := cl.Call(ctx, "POST", wire.PathSetPriority, wire.SetPriority{User: "alice@test", Priority: prio}, &pr)
		return pr, err
	}
	if _, err := set(user, 1); !wire.IsCode(err, wire.CodeForbidden) {
		t.Errorf("a user set a priority: %v", err)
	}
	if pr, err := set(admin, 25); err != nil || pr.Real != 25 || pr.Effective != 25000 {
		t.Fatalf("set: %+v %v; want real 25, effective 25000", pr, err)
	}
	for _, bad := range []float64{0.25, -1} {
		if _, err := set(admin, bad); !wire.IsCode(err, wire.CodeBadRequest) {
			t.Errorf("priority %v: %v, want bad_request", bad, err)
		}
	}
	n.Accountant().SetFault(func() error { return errors.New("no space left on device") })
	if _, err := set(admin, 40); !wire.IsCode(err, wire.CodeUnavailable) {
		t.Errorf("setprio on a full disk: %v, want unavailable", err)
	}
	err := admin.Call(ctx, "POST", wire.PathSetFactor, wire.SetFactor{User: "alice@test", Factor: 3}, nil)
	if !wire.IsCode(err, wire.CodeUnavailable) {
		t.Errorf("setfactor on a full disk: %v, want unavailable", err)
	}
	err = admin.Call(ctx, "POST", wire.PathResetUsage, wire.ResetUsage{User: "alice@test"}, nil)
	if !wire.IsCode(err, wire.CodeUnavailable) {
		t.Errorf("resetusage on a full disk: %v, want unavailable", err)
	}
	n.Accountant().SetFault(nil)
	var prios wire.Priorities
	if err := user.Call(ctx, "GET", wire.PathPriorities, nil, &prios); err != nil {
		t.Fatal(err)
	}
	if len(prios.Users) != 1 || prios.Users[0].Real > 25 || prios.Users[0].Real < 24.9 || prios.Users[0].Factor != 1000 {
		t.Errorf("after the refused changes: %+v; want real 25 (decaying), factor 1000", prios.Users)
	}
}
