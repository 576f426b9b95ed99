package startd

import (
	"testing"
	"time"

	"github.com/kite-sched/kite/daemons/startd/slots"
)

// The policy decision, for every status it acts in.
func TestDecide(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	const grace = 10 * time.Second
	st := func(s slots.State, a slots.Activity) slots.Status { return slots.Status{State: s, Activity: a} }
	running := claimView{claimed: true, ran: time.Minute}
	tests := []struct {
		name   string
		status slots.Status
		v      verdict
		c      claimView
		want   action
		why    string
	}{
		{"owner stays", st(slots.Owner, slots.Idle), verdict{isOwner: true}, claimView{}, actNone, ""},
		{"owner leaves", st(slots.Owner, slots.Idle), verdict{}, claimView{}, actOwnerGone, ""},
		{"owner comes back", st(slots.Unclaimed, slots.Idle), verdict{isOwner: true}, claimView{}, actOwnerBack, ""},
		{"owner comes back to a match", st(slots.Matched, slots.Idle), verdict{isOwner: true}, claimView{}, actOwnerBack, ""},
		{"unclaimed stays", st(slots.Unclaimed, slots.Idle), verdict{}, claimView{}, actNone, ""},
		{"benchmarking is left alone", st(slots.Unclaimed, slots.Benchmarking), verdict{isOwner: true}, claimView{}, actNone, ""},
		{"idle claim keeps", st(slots.Claimed, slots.Idle), verdict{}, claimView{claimed: true}, actNone, ""},
		{"idle claim, START false", st(slots.Claimed, slots.Idle), verdict{startFalse: true}, claimView{claimed: true}, actVacate, "START no longer accepts the claim's job"},
		{"lease expired", st(slots.Claimed, slots.Busy), verdict{}, claimView{claimed: true, expired: true}, actVacate, "the claim's lease expired"},
		{"lease expired while suspended", st(slots.Claimed, slots.Suspended), verdict{cont: true}, claimView{claimed: true, expired: true}, actVacate, "the claim's lease expired"},
		{"busy runs on", st(slots.Claimed, slots.Busy), verdict{cont: true}, running, actNone, ""},
		{"suspend", st(slots.Claimed, slots.Busy), verdict{suspend: true, preempt: true}, running, actSuspend, ""},
		{"preempt without retirement", st(slots.Claimed, slots.Busy), verdict{preempt: true}, running, actVacate, "the startd's PREEMPT policy is true"},
		{"preempt with retirement left", st(slots.Claimed, slots.Busy), verdict{preempt: true, retirement: time.Hour}, running, actRetire, "the startd's PREEMPT policy is true"},
		{"preempt after the retirement", st(slots.Claimed, slots.Busy), verdict{preempt: true, retirement: 30 * time.Second}, running, actVacate, "the startd's PREEMPT policy is true"},
		{"suspended stays", st(slots.Claimed, slots.Suspended), verdict{suspend: true}, running, actNone, ""},
		{"continue", st(slots.Claimed, slots.Suspended), verdict{cont: true}, running, actContinue, ""},
		{"preempt while suspended", st(slots.Claimed, slots.Suspended), verdict{cont: true, preempt: true}, running, actVacate, "the startd's PREEMPT policy is true"},
		{"retiring", st(slots.Claimed, slots.Retiring), verdict{}, claimView{claimed: true, retireUntil: now.Add(time.Second)}, actNone, ""},
		{"retirement over", st(slots.Claimed, slots.Retiring), verdict{}, claimView{claimed: true, retireUntil: now}, actVacate, "the job's retirement time is over"},
		{"vacating", st(slots.Preempting, slots.Vacating), verdict{}, claimView{claimed: true, vacating: time.Second}, actNone, ""},
		{"KILL", st(slots.Preempting, slots.Vacating), verdict{kill: true}, claimView{claimed: true}, actKill, "the startd's KILL policy is true"},
		{"grace over", st(slots.Preempting, slots.Vacating), verdict{}, claimView{claimed: true, vacating: grace}, actKill, "the job did not stop within the vacate grace"},
		{"killing", st(slots.Preempting, slots.Killing), verdict{kill: true}, claimView{claimed: true, expired: true}, actNone, ""},
		{"drained", st(slots.Drained, slots.Idle), verdict{isOwner: true}, claimView{}, actNone, ""},
	}
	for _, tt := range tests {
		a, why := decide(tt.status, tt.v, tt.c, now, grace)
		if a != tt.want || why != tt.why {
			t.Errorf("%s: got %d %q, want %d %q", tt.name, a, why, tt.want, tt.why)
		}
	}
}
