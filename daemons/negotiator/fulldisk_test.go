package negotiator_test

import (
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/start"
)

// A negotiator whose accountant cannot be written (a full disk) goes on
// matching; the usage stays in memory and is written once the disk has
// room (issue 15, finding 3).
func TestFullDiskKeepsNegotiating(t *testing.T) {
	synctest.Test(t, testFullDiskKeepsNegotiating)
}

func testFullDiskKeepsNegotiating(t *testing.T) {
	p := pooltest.New(t)
	start.Collector(t, p)
	f := startSchedd(t, p, "schedd:1", map[string]int{"alice@test": 1})
	advertise(t, p, slot("slot1@a", 1), submitterAd("alice@test", "schedd:1", 1))
	n := start.Negotiator(t, p, fastConfig)
	a := n.Accountant()
	a.SetFlush(0)
	if err := a.Update(time.Now(), map[string]float64{"alice@test": 1}); err != nil {
		t.Fatal(err)
	}
	a.SetFault(func() error { return syscall.ENOSPC })
	n.Reschedule()
	f.wait(t) // the cycle matched although its accountant write failed
	if a.Unwritten() == 0 {
		t.Error("the failed write's usage is not kept to be written later")
	}
	a.SetFault(nil)
	n.Reschedule()
	waitCycle(t, n, 2)
	if a.Unwritten() != 0 {
		t.Errorf("%d accounts still unwritten once the disk has room", a.Unwritten())
	}
}
