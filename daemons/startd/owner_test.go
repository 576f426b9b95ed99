package startd

import (
	"log/slog"
	"os"
	"testing"

	"github.com/kite-sched/kite/daemons/startd/starter"
)

// Whom a job runs as on a root startd (HTCondor's manual, "User Accounts
// in HTCondor on Unix Platforms"): its owner only where the UID domains
// agree, the account exists and is not root, and neither the startd nor
// the job says otherwise; else the slot user. Never root.
func TestJobUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a startd switches users only as root: run the tests as root (CI does)")
	}
	slotUser := &starter.User{Name: "nobody", UID: 65534, GID: 65534}
	machine := jobAd(t, "UidDomain = \"example.org\"")
	for _, tc := range []struct {
		name       string
		runAsOwner bool
		job        string
		want       string // account name; "nobody" is the slot user
	}{
		{"owner of the domain", true, "OsUser = \"daemon\"\nUidDomain = \"example.org\"", "daemon"},
		{"domain in another case", true, "OsUser = \"daemon\"\nUidDomain = \"EXAMPLE.org\"", "daemon"},
		{"another domain", true, "OsUser = \"daemon\"\nUidDomain = \"other.org\"", "nobody"},
		{"no domain", true, "OsUser = \"daemon\"", "nobody"},
		{"root's job", true, "OsUser = \"root\"\nUidDomain = \"example.org\"", "nobody"},
		{"no such account", true, "OsUser = \"no-such-user-kite\"\nUidDomain = \"example.org\"", "nobody"},
		{"the job asks not to", true, "OsUser = \"daemon\"\nUidDomain = \"example.org\"\nRunAsOwner = false", "nobody"},
		{"the startd does not allow it", false, "OsUser = \"daemon\"\nUidDomain = \"example.org\"", "nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{cfg: Config{RunAsOwner: tc.runAsOwner}, log: slog.New(slog.DiscardHandler)}
			st := &slotState{name: "slot1@test", user: slotUser}
			u := s.jobUser(st, machine, jobAd(t, tc.job))
			if u == nil || u.Name != tc.want {
				t.Fatalf("runs as %+v, want %s", u, tc.want)
			}
			if u.UID == 0 {
				t.Fatal("a job runs as root")
			}
			if owner := tc.want != "nobody"; u.Owner != owner {
				t.Errorf("Owner = %v, want %v (only the job's own account may run in its directory)", u.Owner, owner)
			}
		})
	}
}
